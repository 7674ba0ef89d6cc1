// The failCommand fail point, which exists (as on mongod) only with
// `--setParameter enableTestCommands=1`: injected error codes, dropped connections and its modes.
import { MongoClient, MongoNetworkError, MongoServerError } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../helpers/emulator-process.js';

interface Connected {
  emulator: RunningEmulator;
  client: MongoClient;
}

async function connect(args: readonly string[]): Promise<Connected> {
  const emulator = await startEmulator(args);
  // No retries: each injected failure reaches the test exactly once.
  const client = await new MongoClient(`mongodb://127.0.0.1:${emulator.port}/`, {
    retryReads: false,
    retryWrites: false,
    serverSelectionTimeoutMS: 5000,
  }).connect();
  return { emulator, client };
}

async function disconnect({ emulator, client }: Connected): Promise<void> {
  await client.close();
  await emulator.stop();
}

let server: Connected | undefined;

function client(): MongoClient {
  if (!server) throw new Error('the emulator with test commands is not running');
  return server.client;
}

beforeAll(async () => {
  server = await connect(['--setParameter', 'enableTestCommands=1']);
});

afterEach(async () => {
  await client().db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
});

afterAll(async () => {
  if (server) await disconnect(server);
});

describe('failCommand', () => {
  it('does not exist without enableTestCommands, as on mongod', async () => {
    const plain = await connect([]);
    try {
      const command = { configureFailPoint: 'failCommand', mode: 'alwaysOn', data: { failCommands: ['ping'], errorCode: 8 } };
      await expect(plain.client.db('admin').command(command)).rejects.toMatchObject({ code: 59, codeName: 'CommandNotFound' });
    } finally {
      await disconnect(plain);
    }
  });

  it('fails the next listed command with the given code, then lets commands through', async () => {
    const plants = client().db('shop').collection<{ _id: number }>('plants');
    const reply = await client()
      .db('admin')
      .command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['insert'], errorCode: 8 } });
    expect(reply).toMatchObject({ ok: 1, count: 0 });
    const error = await plants.insertOne({ _id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 8, codeName: 'UnknownError', errmsg: "Failing command via 'failCommand' failpoint" });
    await plants.insertOne({ _id: 2 });
    expect(await plants.find().toArray()).toEqual([{ _id: 2 }]);
  });

  it('drops the connection without a reply when asked to, and the next command works', async () => {
    await client()
      .db('admin')
      .command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['find'], closeConnection: true } });
    await expect(client().db('shop').collection('other').findOne()).rejects.toBeInstanceOf(MongoNetworkError);
    await expect(client().db('shop').collection('other').findOne()).resolves.toBeNull();
  });

  it('stays on with alwaysOn until turned off, and skips the first commands with skip', async () => {
    const admin = client().db('admin');
    const ping = () =>
      admin.command({ ping: 1 }).then(
        () => 'ok',
        (error: unknown) => (error as MongoServerError).code,
      );
    await admin.command({ configureFailPoint: 'failCommand', mode: 'alwaysOn', data: { failCommands: ['ping'], errorCode: 8 } });
    expect([await ping(), await ping()]).toEqual([8, 8]);
    expect(await admin.command({ configureFailPoint: 'failCommand', mode: 'off' })).toMatchObject({ count: 2 });
    expect(await ping()).toBe('ok');
    await admin.command({ configureFailPoint: 'failCommand', mode: { skip: 1 }, data: { failCommands: ['ping'], errorCode: 2 } });
    expect([await ping(), await ping()]).toEqual(['ok', 2]);
  });

  it('runs only on admin, and refuses settings it does not implement by name', async () => {
    const failPoint = { configureFailPoint: 'failCommand', mode: 'alwaysOn', data: { failCommands: ['ping'], errorCode: 2 } };
    await expect(client().db('shop').command(failPoint)).rejects.toMatchObject({ code: 13, codeName: 'Unauthorized' });
    await expect(
      client()
        .db('admin')
        .command({ ...failPoint, data: { ...failPoint.data, blockConnection: true } }),
    ).rejects.toMatchObject({
      code: 238,
      errmsg: "the emulator does not implement failCommand's 'blockConnection' setting",
    });
    await expect(
      client()
        .db('admin')
        .command({ ...failPoint, configureFailPoint: 'maxTimeAlwaysTimeOut' }),
    ).rejects.toMatchObject({ code: 238 });
  });
});
