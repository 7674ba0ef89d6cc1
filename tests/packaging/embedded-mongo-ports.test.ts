// The embedded MongoDB of `npm start` and of the tests chooses a free port, which another process can bind before
// MongoDB does: it then starts on another port, rather than failing the start.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '@plant-store/mongod-emulator';
import { MongoClient } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../server/dev/embedded-mongo.js';

let dir: string;
let taken: Server;
let mongo: EmbeddedMongo | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plant-store-ports-'));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await mongo?.stop();
  mongo = undefined;
  await new Promise((resolve) => taken.close(resolve));
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

function heldPort(): number {
  const address = taken.address();
  if (address === null || typeof address === 'string') throw new Error('no port held');
  return address.port;
}

/** The MongoDB binary this run uses, wrapped so that its first start is sent to a port another process holds. */
async function binaryLosingItsFirstPort(): Promise<{ binary: string; firstStart: string }> {
  const real = process.env.MONGOMS_SYSTEM_BINARY ?? ensureBuilt();
  const port = heldPort();
  const firstStart = join(dir, 'first-start');
  const binary = join(dir, 'mongod');
  await writeFile(
    binary,
    [
      '#!/bin/sh',
      `if [ "$1" != --version ] && [ ! -e '${firstStart}' ]; then`,
      `  : > '${firstStart}'`,
      '  prev=',
      '  for arg; do',
      '    shift',
      `    if [ "$prev" = --port ]; then set -- "$@" ${String(port)}; else set -- "$@" "$arg"; fi`,
      '    prev=$arg',
      '  done',
      'fi',
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(binary, 0o755);
  return { binary, firstStart };
}

describe('the embedded MongoDB', () => {
  it('whose chosen port is taken before it binds starts on another, on its data folder, and says so', async () => {
    const { binary, firstStart } = await binaryLosingItsFirstPort();
    vi.stubEnv('MONGOMS_SYSTEM_BINARY', binary);
    const warnings: string[] = [];
    mongo = await startEmbeddedMongo({
      warn: (message) => warnings.push(message),
      dbPath: join(dir, 'data'),
      dbName: 'plantstore',
    });

    expect(existsSync(firstStart)).toBe(true);
    expect(await readdir(join(dir, 'data'))).not.toHaveLength(0);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^Port "\d+" already in use by another process when MongoDB came to bind it \(the error above\): trying another port$/,
      ),
    );
    const client = new MongoClient(mongo.uri, { serverSelectionTimeoutMS: 5_000 });
    try {
      await client.db().collection('plants').insertOne({ name: 'Monstera' });
      expect(await client.db().collection('plants').countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('with no data folder to keep, leaves no temporary folder behind, not even that of the failed start', async () => {
    const { binary } = await binaryLosingItsFirstPort();
    vi.stubEnv('MONGOMS_SYSTEM_BINARY', binary);
    const temporary = join(dir, 'tmp');
    await mkdir(temporary);
    vi.stubEnv('TMPDIR', temporary);
    const warnings: string[] = [];
    mongo = await startEmbeddedMongo({ warn: (message) => warnings.push(message) });
    expect(warnings).toContainEqual(expect.stringContaining('trying another port'));
    await mongo.stop();
    mongo = undefined;
    expect(await readdir(temporary)).toStrictEqual([]);
  }, 60_000);

  it('given a port that is taken, fails rather than choosing another', async () => {
    const port = heldPort();
    const warnings: string[] = [];
    await expect(startEmbeddedMongo({ port, warn: (message) => warnings.push(message) })).rejects.toThrow(
      `Port "${String(port)}" already in use`,
    );
    expect(warnings.filter((message) => message.includes('trying another port'))).toStrictEqual([]);
  }, 60_000);
});
