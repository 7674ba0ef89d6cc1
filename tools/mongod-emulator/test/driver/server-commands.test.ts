// Server-level commands through the official driver: hello, ping, buildInfo, unknown commands,
// transaction refusal on a standalone server, database and collection management.
import { Long, MongoServerError } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { useTestDatabase, type LooseDoc } from '../helpers/mongo.js';

const mongo = useTestDatabase('server_commands');

describe('handshake and server information', () => {
  it('answers hello as a writable standalone primary', async () => {
    const reply = await mongo.client.db('admin').command({ hello: 1 });
    expect(reply.ok).toBe(1);
    expect(reply.isWritablePrimary).toBe(true);
    expect(reply.maxBsonObjectSize).toBe(16_777_216);
    expect(reply.maxMessageSizeBytes).toBe(48_000_000);
    expect(reply.maxWriteBatchSize).toBe(100_000);
    expect(reply.logicalSessionTimeoutMinutes).toBe(30);
    expect(reply.minWireVersion).toBe(0);
    expect(reply.maxWireVersion).toBeGreaterThanOrEqual(25);
    expect(reply.localTime).toBeInstanceOf(Date);
    expect(typeof reply.connectionId).toBe('number');
    expect(reply.setName).toBeUndefined();
  });

  it('answers the legacy isMaster spelling too', async () => {
    const reply = await mongo.client.db('admin').command({ isMaster: 1 });
    expect(reply.ismaster).toBe(true);
  });

  it('answers ping and buildInfo', async () => {
    await expect(mongo.client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    const info = await mongo.client.db('admin').command({ buildInfo: 1 });
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Array.isArray(info.versionArray)).toBe(true);
  });

  it('exposes which MongoDB the run uses', () => {
    expect(['uri', 'mongod', 'emulator']).toContain(inject('mongoKind'));
  });
});

describe('errors shaped like mongod', () => {
  it('rejects unknown commands with CommandNotFound (59)', async () => {
    const error = await mongo.db.command({ frobnicate: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 59, codeName: 'CommandNotFound', errmsg: "no such command: 'frobnicate'" });
  });

  it('refuses transactions on a standalone server with IllegalOperation (20)', async () => {
    const session = mongo.client.startSession();
    try {
      session.startTransaction();
      const error = await mongo.db
        .collection<LooseDoc>('txn')
        .insertOne({ a: 1 }, { session })
        .catch((caught: unknown) => caught);
      // The driver rewraps mongod's code 20 reply into a "retryable writes" hint, keeping the original.
      expect(error).toBeInstanceOf(MongoServerError);
      const original = (error as MongoServerError & { originalError?: unknown }).originalError;
      expect(original).toBeInstanceOf(MongoServerError);
      expect(original).toMatchObject({
        code: 20,
        codeName: 'IllegalOperation',
        message: 'Transaction numbers are only allowed on a replica set member or mongos',
      });
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    expect(await mongo.db.collection<LooseDoc>('txn').countDocuments()).toBe(0);
  });

  it('refuses a raw command carrying a transaction number', async () => {
    const command = { insert: 'txn', documents: [{ a: 1 }], txnNumber: Long.fromNumber(1), autocommit: false, startTransaction: true };
    const error = await mongo.db.command(command).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 20, codeName: 'IllegalOperation' });
  });
});

describe('databases and collections', () => {
  it('creates, lists and drops collections', async () => {
    await mongo.db.createCollection('created');
    await mongo.db.collection<LooseDoc>('implicit').insertOne({ x: 1 });
    const names = (await mongo.db.listCollections().toArray()).map((info) => info.name).sort();
    expect(names).toEqual(expect.arrayContaining(['created', 'implicit']));
    const [info] = await mongo.db.listCollections({ name: 'created' }).toArray();
    expect(info).toMatchObject({ name: 'created', type: 'collection' });
    expect(await mongo.db.collection<LooseDoc>('created').drop()).toBe(true);
    const after = (await mongo.db.listCollections({}, { nameOnly: true }).toArray()).map((item) => item.name);
    expect(after).not.toContain('created');
    expect(after).toContain('implicit');
  });

  it('lists a database once it holds data and forgets it after dropDatabase', async () => {
    const other = mongo.client.db(`${mongo.db.databaseName}_x`);
    await other.collection<LooseDoc>('c').insertOne({ a: 1 });
    const listed = await mongo.client.db('admin').admin().listDatabases();
    expect(listed.databases.map((database) => database.name)).toContain(other.databaseName);
    await other.dropDatabase();
    const relisted = await mongo.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(relisted.databases.map((database) => database.name)).not.toContain(other.databaseName);
  });

  it('ends sessions the driver opened', async () => {
    const session = mongo.client.startSession();
    await mongo.db.collection<LooseDoc>('sessions').insertOne({ a: 1 }, { session });
    await session.endSession();
    await expect(mongo.client.db('admin').command({ endSessions: [session.id] })).resolves.toMatchObject({ ok: 1 });
  });
});
