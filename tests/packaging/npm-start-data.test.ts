// `npm start` on its embedded MongoDB keeps its plants and its development token in the development
// folder across restarts, even when killed outright; prints and records the MongoDB URI it uses, which
// `npm run webhooks:failed` then finds by itself (and knows stale when killed); a second start on the same folder
// refuses in one line; and a removed folder starts empty.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLANTS_COLLECTION } from '../../server/plants/mongo-plant-store.js';
import { DEV_TOKEN_BANNER, useDevFolders } from '../helpers/dev-folders.js';
import { commandLine, descendantsOf, isRunning, killIfRunning, run, runToEnd, type Command } from '../helpers/processes.js';
const MONGODB_LINE = /^MongoDB: (mongodb:\/\/\S+) \(.*\), data kept in (\S+); to start empty, stop the service and remove (\S+)$/m;
/** Beyond 2^53: the id must come back exactly. */
const ID = '9007199254740993';

const newDevDir = useDevFolders();
const seen = new Set<number>();
afterEach(() => {
  killIfRunning(seen);
  seen.clear();
});

interface Started {
  command: Command;
  token: string;
  tokenFile: string;
  address: string;
  mongoUri: string;
  dataDir: string;
}

/** `npm start` as a newcomer runs it (no MONGODB_URI, no API_TOKENS), on the given development folder. */
async function npmStart(devDir: string): Promise<Started> {
  const command = run('npm', ['start'], { env: { PORT: '0', PLANT_STORE_DEV_DIR: devDir }, detached: true });
  seen.add(command.pid);
  const [, tokenFile = '', token = '', address = ''] = await command.waitFor(DEV_TOKEN_BANNER, { timeoutMs: 45_000 });
  const [, mongoUri = '', dataDir = '', removed = ''] = await command.waitFor(MONGODB_LINE);
  expect(removed).toBe(devDir);
  return { command, token, tokenFile, address, mongoUri, dataDir };
}

function plantRequest(started: Started, method: 'GET' | 'POST', body?: string): Promise<Response> {
  return fetch(`${started.address}/plants${method === 'GET' ? `/${ID}` : ''}`, {
    method,
    headers: { authorization: `Bearer ${started.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body,
  });
}

async function stop(started: Started): Promise<void> {
  process.kill(started.command.pid, 'SIGTERM');
  expect(await started.command.exited).toStrictEqual({ code: 0, signal: null });
}

describe('npm start on the embedded MongoDB', () => {
  it('keeps a plant acknowledged just before its whole process group is SIGKILLed, and its token; npm run webhooks:failed finds its MongoDB, or says it is gone; a second start on the folder refuses; a removed folder starts empty', async () => {
    const devDir = await newDevDir();

    const first = await npmStart(devDir);
    expect(first.tokenFile).toBe(join(devDir, 'token'));
    expect(first.dataDir).toBe(join(devDir, 'mongod-data'));
    expect((await readFile(join(devDir, 'mongodb-uri'), 'utf8')).trim()).toBe(first.mongoUri);

    // The CLI finds the running development database with no MONGODB_URI.
    const failed = await runToEnd('npm', ['run', 'webhooks:failed'], { env: { PLANT_STORE_DEV_DIR: devDir } });
    expect(failed.stdout).toContain('0 failed deliveries');

    const created = await plantRequest(first, 'POST', `{"id": ${ID}, "name": "Monstera"}`);
    expect(created.status).toBe(200);
    // Killed at once: npm's whole process group, and the embedded MongoDB, in a group of its own, with it.
    const processes = descendantsOf(first.command.pid);
    for (const pid of processes) seen.add(pid);
    process.kill(-first.command.pid, 'SIGKILL');
    for (const pid of processes.filter(isRunning)) process.kill(pid, 'SIGKILL');
    expect(await first.command.exited).toStrictEqual({ code: null, signal: 'SIGKILL' });
    await vi.waitUntil(() => !processes.some(isRunning), { timeout: 10_000 });

    // The address the killed run recorded is left behind; the CLI tells it is stale rather than failing to connect.
    const stale = run('npm', ['run', 'webhooks:failed'], { env: { PLANT_STORE_DEV_DIR: devDir } });
    expect((await stale.exited).code).not.toBe(0);
    expect(stale.output()).toContain(`no embedded MongoDB is running on ${devDir}`);
    expect(stale.output()).not.toMatch(/ECONNREFUSED|MongoServerSelectionError/);

    const second = await npmStart(devDir);
    // A second npm start on the same folder refuses in one line, naming what to do, before starting a MongoDB.
    const again = run('npm', ['start'], { env: { PORT: '0', PLANT_STORE_DEV_DIR: devDir } });
    seen.add(again.pid);
    expect((await again.exited).code).toBe(1);
    // It names the running service, not only its MongoDB: stopping that alone would leave the service answering 503s.
    const service = descendantsOf(second.command.pid).find((pid) => commandLine(pid).includes('tools/start.js'));
    expect(again.output()).toContain(
      `${join(devDir, 'mongod-data')} is in use by another npm start or npm run dev (process ${service}; its MongoDB is process `,
    );
    expect(again.output()).not.toMatch(/DBPathInUse|\n\s+at /);
    expect(second.token).toBe(first.token);
    const kept = await plantRequest(second, 'GET');
    expect(kept.status).toBe(200);
    expect(await kept.text()).toBe(`{"id":${ID},"name":"Monstera"}`);
    // The printed URI names the service's database: an app or a shell given it sees the service's plants.
    const shell = new MongoClient(second.mongoUri);
    try {
      expect(await shell.db().collection(PLANTS_COLLECTION).countDocuments({ name: 'Monstera' })).toBe(1);
    } finally {
      await shell.close();
    }
    await stop(second);
    // A stopped MongoDB's address is not left behind for the CLI.
    expect(existsSync(join(devDir, 'mongodb-uri'))).toBe(false);

    // The documented way to start empty.
    await rm(devDir, { recursive: true, force: true });
    const third = await npmStart(devDir);
    expect(third.token).not.toBe(first.token);
    expect((await plantRequest(third, 'GET')).status).toBe(404);
    await stop(third);
    seen.clear();
  }, 150_000);
});
