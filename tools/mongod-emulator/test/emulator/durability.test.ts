// The emulator keeps its --dbpath as mongod does: a write acknowledged before a SIGKILL is there after
// the next start, with its BSON types and the indexes; a torn journal tail is dropped; a clean
// shutdown checkpoints; a second emulator on the same dbpath refuses to start; in-memory engines
// write nothing there.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal128, Double, Int32, Long, MongoClient, MongoServerError, type Document } from 'mongodb';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EMULATOR_BIN, startEmulator, type RunningEmulator } from '../helpers/emulator-process.js';

const folders: string[] = [];
const running: RunningEmulator[] = [];
const clients: MongoClient[] = [];

function newDbpath(): string {
  const folder = mkdtempSync(join(tmpdir(), 'emulator-durability-'));
  folders.push(folder);
  return folder;
}

async function start(dbpath: string, args: readonly string[] = []): Promise<{ emulator: RunningEmulator; client: MongoClient }> {
  const emulator = await startEmulator(args, { dbpath });
  running.push(emulator);
  const client = new MongoClient(`mongodb://127.0.0.1:${emulator.port}/?directConnection=true`, {
    promoteValues: false,
    promoteLongs: false,
  });
  clients.push(client);
  return { emulator, client };
}

async function kill(emulator: RunningEmulator): Promise<void> {
  emulator.child.kill('SIGKILL');
  expect(await emulator.exited).toStrictEqual({ code: null, signal: 'SIGKILL' });
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close(true)));
  await Promise.all(running.splice(0).map((emulator) => emulator.stop()));
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Any _id, as the tests store longs and ints. */
type Plant = Document & { _id: unknown };
const plantsOf = (client: MongoClient) => client.db('store').collection<Plant>('plants');

const PLANTS: Plant[] = [
  { _id: new Long('9007199254740993'), name: 'Monstera', price: new Decimal128('12.50'), count: new Int32(3), weight: new Double(1) },
  { _id: new Long(2), name: 'Fern', tags: ['shade', { kind: 'indoor' }] },
  { _id: new Long(3), name: 'Ivy' },
];

describe('the emulator keeps its --dbpath', () => {
  it('has every acknowledged write after a SIGKILL: documents with their BSON types, updates, deletes and indexes', async () => {
    const dbpath = newDbpath();
    const first = await start(dbpath);
    const plants = plantsOf(first.client);
    await plants.createIndex({ name: 1 }, { unique: true, name: 'name_unique' }, {});
    await plants.insertMany(PLANTS);
    await plants.updateOne({ _id: new Long(2) }, { $set: { name: 'Maidenhair fern' } });
    await plants.deleteOne({ _id: new Long(3) });
    // Acknowledged: killed at once, with no chance to write anything more.
    await kill(first.emulator);

    const second = await start(dbpath);
    const again = plantsOf(second.client);
    expect(await again.find().toArray()).toStrictEqual([PLANTS[0], { ...PLANTS[1], name: 'Maidenhair fern' }]);
    expect((await again.indexes()).map((index) => index.name)).toStrictEqual(['_id_', 'name_unique']);
    await expect(again.insertOne({ _id: new Long(4), name: 'Monstera' })).rejects.toThrow(MongoServerError);
    const loaded = second.emulator.logLines().find((line) => line.msg === 'Data loaded from the dbpath');
    expect(loaded?.attr).toMatchObject({ dbPath: dbpath, replayed: 7, tornBytes: 0 });
  });

  it('drops a record torn by a crash at the end of the journal and keeps all before it', async () => {
    const dbpath = newDbpath();
    const first = await start(dbpath);
    await plantsOf(first.client).insertOne({ _id: 1, name: 'Aloe' });
    await kill(first.emulator);
    const journal = readdirSync(dbpath).find((name) => name.startsWith('emulator-journal.'));
    if (journal === undefined) throw new Error(`no journal in ${readdirSync(dbpath).join(', ')}`);
    // The first bytes of a record: a checksum and a length that runs past the end of the file.
    appendFileSync(join(dbpath, journal), Buffer.from([1, 2, 3, 4, 200, 0, 0, 0, 3]));

    const second = await start(dbpath);
    expect(await plantsOf(second.client).find().toArray()).toStrictEqual([{ _id: new Int32(1), name: 'Aloe' }]);
    expect(second.emulator.logLines().find((line) => line.msg === 'Data loaded from the dbpath')?.attr).toMatchObject({ tornBytes: 9 });
  });

  it('checkpoints at a clean shutdown, releasing the lock, and loads the checkpoint with nothing to replay', async () => {
    const dbpath = newDbpath();
    const first = await start(dbpath);
    await plantsOf(first.client).insertOne({ _id: 1, name: 'Aloe' });
    first.emulator.child.kill('SIGTERM');
    expect(await first.emulator.exited).toStrictEqual({ code: 0, signal: null });
    expect(readdirSync(dbpath).sort()).toStrictEqual(['emulator-checkpoint.bson', 'emulator-journal.1.bson']);

    const second = await start(dbpath);
    expect(await plantsOf(second.client).find().toArray()).toStrictEqual([{ _id: new Int32(1), name: 'Aloe' }]);
    expect(second.emulator.logLines().find((line) => line.msg === 'Data loaded from the dbpath')?.attr).toMatchObject({ replayed: 0 });
  });

  it('refuses to start on a dbpath another emulator holds, exiting 100 with DBPathInUse', async () => {
    const dbpath = newDbpath();
    const holder = await start(dbpath);
    const second = spawnSync(EMULATOR_BIN, ['--port', '0', '--dbpath', dbpath], { encoding: 'utf8', timeout: 30_000 });
    expect(second.status).toBe(100);
    expect(second.stdout).toContain(
      `DBPathInUse: Unable to lock the lock file: ${join(dbpath, 'mongod.lock')} (held by process ${String(holder.emulator.child.pid)})`,
    );
    // The holder goes on serving.
    expect(await plantsOf(holder.client).find().toArray()).toStrictEqual([]);
  }, 30_000);

  it.each(['inMemory', 'ephemeralForTest'])('with --storageEngine %s writes nothing to the dbpath', async (engine) => {
    const dbpath = newDbpath();
    const { client, emulator } = await start(dbpath, ['--storageEngine', engine]);
    await plantsOf(client).insertOne({ _id: 1, name: 'Aloe' });
    await kill(emulator);
    expect(readdirSync(dbpath)).toStrictEqual([]);
  });
});
