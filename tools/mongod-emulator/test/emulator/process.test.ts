// The emulator as a process, the way mongodb-memory-server drives it: flags, the ready line,
// signals, the shutdown command and start-up time.
import { spawnSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { EMULATOR_BIN, startEmulator, type RunningEmulator } from '../helpers/emulator-process.js';

const running: RunningEmulator[] = [];

async function start(args: readonly string[] = []): Promise<RunningEmulator> {
  const emulator = await startEmulator(args);
  running.push(emulator);
  return emulator;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.stop()));
});

describe('mongod emulator process', () => {
  it('prints a mongod-style version and exits 0', () => {
    const result = spawnSync(EMULATOR_BIN, ['--version'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const [first, second] = result.stdout.split('\n');
    expect(first).toMatch(/^db version v8\.0\.\d+$/);
    expect(second).toMatch(/emulator/);
  });

  it('announces "Waiting for connections" as a JSON log line with the port', async () => {
    const emulator = await start();
    const ready = emulator.logLines().find((line) => line.msg === 'Waiting for connections');
    expect(ready?.attr.port).toBe(emulator.port);
    expect(emulator.port).toBeGreaterThan(0);
  });

  it('starts in well under a second', async () => {
    const emulator = await start();
    expect(emulator.startupMs).toBeLessThan(1000);
  });

  it('accepts --port=N style flags and warns about unknown ones without failing', async () => {
    const emulator = await start([
      '--storageEngine=wiredTiger',
      '--bind_ip',
      '127.0.0.1',
      '--noauth',
      '--wiredTigerCacheSizeGB',
      '1',
      '--setParameter=x=1',
    ]);
    expect(emulator.stderr()).toMatch(/ignoring unsupported option --wiredTigerCacheSizeGB/);
    expect(emulator.stderr()).toMatch(/ignoring unsupported option --setParameter=x=1/);
    const client = await MongoClient.connect(`mongodb://127.0.0.1:${emulator.port}`);
    await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    await client.close();
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('exits 0 at once on %s', async (signal) => {
    const emulator = await start();
    const sentAt = performance.now();
    emulator.child.kill(signal);
    const { code } = await emulator.exited;
    expect(code).toBe(0);
    expect(performance.now() - sentAt).toBeLessThan(1000);
  });

  it('exits 0 on the admin shutdown command, which only admin may run', async () => {
    const emulator = await start();
    const client = await MongoClient.connect(`mongodb://127.0.0.1:${emulator.port}`);
    await expect(client.db('plants').command({ shutdown: 1 })).rejects.toMatchObject({ code: 13 });
    await client
      .db('admin')
      .command({ shutdown: 1 })
      .catch(() => undefined);
    const { code } = await emulator.exited;
    expect(code).toBe(0);
    await client.close(true);
  });
});
