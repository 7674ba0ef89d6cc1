// A 200 only after MongoDB acknowledged the insert with the configured write concern, checked on
// the wire between the service and MongoDB.
import { Long } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { postPlant, startTestApp, testMongoUri, type TestApp } from '../helpers/app.js';
import { startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

let proxy: MongoWireProxy;
beforeAll(async () => {
  proxy = await startMongoWireProxy(testMongoUri());
});
afterAll(async () => {
  await proxy.close();
});

async function appThroughProxy(env: Record<string, string> = {}): Promise<TestApp> {
  const dbName = new ConnectionString(testMongoUri()).pathname.slice(1);
  return startTestApp({ env: { MONGODB_URI: proxy.uri(dbName), ...env } });
}

const insertsOf = (id: number) =>
  proxy.commands.filter((command) => 'insert' in command && (command.documents as { _id: Long }[] | undefined)?.[0]?._id.equals(id));

describe('the write concern on the wire', () => {
  it('is { w: "majority", j: true } on every insert by default', async () => {
    const testApp = await appThroughProxy();
    try {
      expect((await postPlant(testApp.app, { id: 101, name: 'Fern' })).statusCode).toBe(200);
      const inserts = insertsOf(101);
      expect(inserts).toHaveLength(1);
      expect(inserts[0]?.writeConcern).toStrictEqual({ w: 'majority', j: true });
    } finally {
      await testApp.close();
    }
  });

  it('follows MONGODB_WRITE_CONCERN and MONGODB_JOURNAL', async () => {
    const testApp = await appThroughProxy({ MONGODB_WRITE_CONCERN: '1', MONGODB_JOURNAL: 'false' });
    try {
      expect((await postPlant(testApp.app, { id: 102, name: 'Fern' })).statusCode).toBe(200);
      // Read with BSON types kept: w arrives as an Int32.
      const concern = insertsOf(102)[0]?.writeConcern as { w: unknown; j: unknown } | undefined;
      expect({ w: Number(concern?.w), j: concern?.j }).toStrictEqual({ w: 1, j: false });
    } finally {
      await testApp.close();
    }
  });

  it('cannot be configured unacknowledged (w: 0)', () => {
    expect(() => loadConfig({ MONGODB_WRITE_CONCERN: '0' })).toThrow('MONGODB_WRITE_CONCERN');
  });
});

describe('an insert MongoDB did not acknowledge as asked', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await appThroughProxy({ MONGODB_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    proxy.fault = 'none';
    await testApp.close();
  });

  it.each([
    ['a write concern error', 'writeConcernError', 201],
    ['a connection lost before the acknowledgement', 'dropConnection', 202],
    ['a server that takes the insert and never answers', 'noAnswer', 203],
  ] as const)(
    'with %s: 503, never 200; a retry once MongoDB is healthy answers 200 and one document is stored',
    async (_case, fault, id) => {
      proxy.fault = fault;
      const started = Date.now();
      const failed = await postPlant(testApp.app, { id, name: 'Ivy' });
      expect(failed.statusCode).toBe(503);
      // MONGODB_TIMEOUT_MS bounds the whole operation, retries included.
      expect(Date.now() - started).toBeLessThan(1000 + 500);
      expect(failed.json()).toStrictEqual({ error: 503, message: expect.any(String) as unknown });
      expect(insertsOf(id).length).toBeGreaterThan(0);

      proxy.fault = 'none';
      const retried = await postPlant(testApp.app, { id, name: 'Ivy' });
      expect(retried.statusCode).toBe(200);
      expect(await testApp.plants.countDocuments({ _id: Long.fromNumber(id) })).toBe(1);
    },
  );
});
