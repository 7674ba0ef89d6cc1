// What list, get and delete ask of MongoDB, seen on the wire between the service and MongoDB:
// list is a keyset query on _id (a range on _id, sorted by _id, limit, never a skip); get and
// delete name one document by _id. (Whether the server then uses the _id index is for `explain`
// to say, which the mongod emulator these tests run on by default does not implement.)
// The proxy decodes with the bson package itself, so its values are of these classes.
import { Int32, Long, type Document } from 'bson';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLANTS_COLLECTION } from '../../server/plants/mongo-plant-store.js';
import { postPlant, startTestApp, TEST_TOKEN, testMongoUri, type TestApp } from '../helpers/app.js';
import { startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

let proxy: MongoWireProxy;
let testApp: TestApp;
beforeAll(async () => {
  const uri = testMongoUri();
  proxy = await startMongoWireProxy(uri);
  testApp = await startTestApp({ env: { MONGODB_URI: proxy.uri(new ConnectionString(uri).pathname.slice(1)) } });
  for (const id of [1, 2, 3, 4]) expect((await postPlant(testApp.app, { id, name: `plant ${id}` })).statusCode).toBe(200);
});
afterAll(async () => {
  await testApp.close();
  await proxy.close();
});
// The proxy reads numbers as BSON gives them: Int32 for a limit or a sort direction.
beforeEach(() => {
  proxy.commands.length = 0;
});

const send = (method: 'GET' | 'DELETE', url: string) =>
  testApp.app.inject({ method, url, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
/** The commands the service sent on the plants collection under `name` (find, delete...). */
const commandsOf = (name: string): Document[] => proxy.commands.filter((command) => command[name] === PLANTS_COLLECTION);

describe('list', () => {
  it('asks for the first page by _id order, one more plant than the page, and no skip', async () => {
    expect((await send('GET', '/plants?limit=2')).statusCode).toBe(200);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ filter: {}, sort: { _id: new Int32(1) }, limit: new Int32(3) });
    expect(find).not.toHaveProperty('skip');
  });

  it('asks for a later page by a range on _id after the last id, never by skipping', async () => {
    const response = await send('GET', '/plants?limit=2&after=2');
    expect(response.json()).toEqual([
      { id: 3, name: 'plant 3' },
      { id: 4, name: 'plant 4' },
    ]);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ sort: { _id: new Int32(1) }, limit: new Int32(3) });
    expect(find).not.toHaveProperty('skip');
    // Beside the range, only what keeps a deleted plant's tombstone out of the list.
    expect(Object.keys(find?.filter as Document).sort()).toEqual(['_id', 'tombstone']);
    expect((find?.filter as { _id: { $gt: unknown } })._id).toStrictEqual({ $gt: Long.fromNumber(2) });
    expect((find?.filter as { tombstone: unknown }).tombstone).toStrictEqual({ $exists: false });
  });
});

describe('get and delete', () => {
  it('get reads one document by _id', async () => {
    expect((await send('GET', '/plants/3')).statusCode).toBe(200);
    const [find, ...others] = commandsOf('find');
    expect(others).toHaveLength(0);
    expect(find).toMatchObject({ filter: { _id: Long.fromNumber(3) }, limit: new Int32(1) });
  });

  it('delete removes at most one document, named by _id', async () => {
    expect((await send('DELETE', '/plants/4')).statusCode).toBe(204);
    const [command, ...others] = commandsOf('delete');
    expect(others).toHaveLength(0);
    expect(command?.deletes).toStrictEqual([{ q: { tombstone: { $exists: false }, _id: Long.fromNumber(4) }, limit: new Int32(1) }]);
  });
});
