// `npm run dev`: the service from source with reload, its token and its embedded MongoDB kept across
// restarts, its log lines readable, and nothing left running once it is stopped.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_TOKEN_BANNER, useDevFolders } from '../helpers/dev-folders.js';
import { descendantsOf, isRunning, killIfRunning, run, type Command } from '../helpers/processes.js';

/** A dev folder for each test, rather than the project's .dev/. */
const newDevDir = useDevFolders();

/** Every process a test saw, killed after it if still there (a test that passes clears it). */
const seen = new Set<number>();
afterEach(() => {
  killIfRunning(seen);
  seen.clear();
});

function npmRunDev(devDir: string): Command {
  const dev = run('npm', ['run', 'dev'], { env: { PORT: '0', PLANT_STORE_DEV_DIR: devDir }, detached: true });
  seen.add(dev.pid);
  return dev;
}

/** The token and address of the banner printed after the service's next start, from `from` in the output. */
async function nextStart(dev: Command, from: number): Promise<{ tokenFile: string; token: string; address: string }> {
  const [, tokenFile = '', token = '', address = ''] = await dev.waitFor(DEV_TOKEN_BANNER, { from, timeoutMs: 45_000 });
  return { tokenFile, token, address };
}

function createPlant(address: string, token: string, plant: { id: number; name: string }): Promise<Response> {
  return fetch(`${address}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(plant),
  });
}

async function stop(dev: Command): Promise<void> {
  const processes = descendantsOf(dev.pid);
  for (const pid of processes) seen.add(pid);
  expect(processes.length).toBeGreaterThanOrEqual(3); // the dev loop, tsx, the service, the MongoDB...
  process.kill(dev.pid, 'SIGTERM');
  expect(await dev.exited).toStrictEqual({ code: 0, signal: null });
  expect(processes.filter(isRunning)).toStrictEqual([]);
}

describe('npm run dev', () => {
  it('keeps the token and the embedded data across a restart of the service and of npm run dev itself, and prints readable log lines', async () => {
    const devDir = await newDevDir();
    const dev = npmRunDev(devDir);
    const first = await nextStart(dev, 0);
    expect(first.tokenFile).toBe(join(devDir, 'token'));
    expect((await readFile(first.tokenFile, 'utf8')).trim()).toBe(first.token);
    expect((await createPlant(first.address, first.token, { id: 1, name: 'Monstera' })).status).toBe(200);
    await dev.waitFor(/INFO: POST \/plants 200 [\d.]+ ms/);

    // Return makes tsx restart the service, as a change to a source file does.
    const mark = dev.output().length;
    dev.child.stdin.write('\n');
    const second = await nextStart(dev, mark);
    expect(second.token).toBe(first.token);
    // The same id with another name: 409 only if the plant stored before the restart is still there.
    expect((await createPlant(second.address, second.token, { id: 1, name: 'Fern' })).status).toBe(409);

    await dev.waitFor(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/plants 409 [\d.]+ ms/m, { from: mark });
    const lines = dev.stdout().split('\n');
    expect(lines.filter((line) => line.startsWith('{'))).toStrictEqual([]);
    expect(lines.filter((line) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: plant store listening on http:\/\/\S+/.test(line))).toHaveLength(2);

    await stop(dev);
    seen.clear();

    // npm run dev itself stopped and started again: the same token, and the plant is still there.
    const restarted = npmRunDev(devDir);
    const third = await nextStart(restarted, 0);
    expect(third.token).toBe(first.token);
    expect((await createPlant(third.address, third.token, { id: 1, name: 'Fern' })).status).toBe(409);
    await stop(restarted);
    seen.clear();
  }, 120_000);

  it('prints a failure to start as readable as its other log lines, and goes on watching', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const dev = run('npm', ['run', 'dev'], { env: { PORT: String(port), PLANT_STORE_DEV_DIR: await newDevDir() }, detached: true });
      seen.add(dev.pid);
      await dev.waitFor(/^\[\d\d:\d\d:\d\d\.\d{3}\] FATAL: plant store failed to start: listen EADDRINUSE.*choose another PORT/m, {
        timeoutMs: 45_000,
      });
      expect(dev.output()).not.toMatch(/^\{"level"/m);
      // The port freed, Return starts the service again.
      await new Promise((resolve) => taken.close(resolve));
      const mark = dev.output().length;
      dev.child.stdin.write('\n');
      await nextStart(dev, mark);
      await stop(dev);
      seen.clear();
    } finally {
      taken.close();
    }
  }, 90_000);

  it('uses the token kept in its dev folder when started again', async () => {
    const devDir = await newDevDir();
    await writeFile(join(devDir, 'token'), 'kept-dev-token-8Jq\n');
    const dev = npmRunDev(devDir);
    const again = await nextStart(dev, 0);
    expect(again.token).toBe('kept-dev-token-8Jq');
    expect((await createPlant(again.address, again.token, { id: 2, name: 'Ivy' })).status).toBe(200);
    await stop(dev);
    seen.clear();
  }, 90_000);
});
