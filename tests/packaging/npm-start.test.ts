// `npm start` as a user or a supervisor runs it: answering, and stopped gracefully by the
// signals sent to the npm process itself (Docker, systemd) or to its whole group (Ctrl-C).
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRawSocket, parseResponse, postHead } from '../helpers/raw-socket.js';
import { commandLine, descendantsOf, isRunning, killIfRunning, LISTENING, PROJECT_ROOT, run, type Command } from '../helpers/processes.js';

const TOKEN = 'npm-start-token';

/** Every process a test saw, killed after it if still there (a test that passes clears it). */
const seen = new Set<number>();
afterEach(() => {
  killIfRunning(seen);
  seen.clear();
});

/** A development folder of this file's own, rather than the project's .dev/. */
const DEV_DIR = mkdtempSync(join(tmpdir(), 'plant-store-dev-'));
afterAll(() => {
  rmSync(DEV_DIR, { recursive: true, force: true });
});

/** `npm start` with the embedded MongoDB (no MONGODB_URI), on a free port. */
function npmStart(): Command {
  const start = run('npm', ['start'], { env: { PORT: '0', API_TOKENS: TOKEN, PLANT_STORE_DEV_DIR: DEV_DIR }, detached: true });
  seen.add(start.pid);
  return start;
}

async function healthzOk(address: string): Promise<boolean> {
  return fetch(`${address}/healthz`).then(
    (response) => response.status === 200,
    () => false,
  );
}

describe('npm start', () => {
  it('answers /healthz once listening, and on SIGTERM to npm finishes the request in flight and leaves nothing running', async () => {
    // Whether it answers, not how soon: timings belong to the bench, whose start-up line times the production command.
    const start = npmStart();
    const [, address = ''] = await start.waitFor(LISTENING);
    expect(await healthzOk(address)).toBe(true);

    // Headers and half the body before the signal, the rest after it.
    const body = JSON.stringify({ id: 1, name: 'Monstera' });
    const socket = await openRawSocket(address);
    socket.write(postHead('/plants', Buffer.byteLength(body), { authorization: `Bearer ${TOKEN}` }) + body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const processes = descendantsOf(start.pid);
    for (const pid of processes) seen.add(pid);
    expect(processes.length).toBeGreaterThanOrEqual(2); // the service and its embedded MongoDB at least

    const signalledAt = performance.now();
    process.kill(start.pid, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write(body.slice(10));

    expect(parseResponse((await socket.closed).data)).toStrictEqual({ status: 200, body: { name: 'Monstera' } });
    expect(await start.exited).toStrictEqual({ code: 0, signal: null });
    expect(performance.now() - signalledAt).toBeLessThan(10_000);
    expect(start.output()).toContain('shutting down');
    expect(processes.filter(isRunning)).toStrictEqual([]);
    seen.clear();
  });

  it('stops gracefully on Ctrl-C (SIGINT to the whole process group, and again from npm), exit code 0, nothing left running', async () => {
    const start = npmStart();
    const [, address = ''] = await start.waitFor(LISTENING);
    expect(await healthzOk(address)).toBe(true);
    const processes = descendantsOf(start.pid);
    for (const pid of processes) seen.add(pid);
    const service = processes.find((pid) => commandLine(pid).includes('tools/start.js'));
    if (service === undefined) throw new Error(`no service process under npm: ${processes.map(commandLine).join('; ')}`);

    // A request in flight holds the shutdown open while the second SIGINT arrives, as npm's copy can.
    const body = JSON.stringify({ id: 2, name: 'Fern' });
    const socket = await openRawSocket(address);
    socket.write(postHead('/plants', Buffer.byteLength(body), { authorization: `Bearer ${TOKEN}` }) + body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-start.pid, 'SIGINT');
    await start.waitFor(/shutting down/);
    process.kill(service, 'SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write(body.slice(10));

    expect(parseResponse((await socket.closed).data)).toStrictEqual({ status: 200, body: { name: 'Fern' } });
    expect(await start.exited).toStrictEqual({ code: 0, signal: null });
    expect(start.output().match(/shutting down/g)).toHaveLength(1);
    expect(processes.filter(isRunning)).toStrictEqual([]);
    seen.clear();
  });
});

describe('the start launcher (tools/start.js)', () => {
  // A project of its own whose build writes a dist/server/main.js that tells where it runs.
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'plant-store-launcher-'));
    mkdirSync(join(root, 'tools'));
    mkdirSync(join(root, 'server'));
    cpSync(join(PROJECT_ROOT, 'tools', 'start.js'), join(root, 'tools', 'start.js'));
    writeFileSync(join(root, 'server', 'main.ts'), '// a source\n');
    const service = "console.log(`service ran in ${process.argv[1]?.endsWith('start.js') ? 'the launcher' : 'another'} process`);";
    const build = `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist/server', { recursive: true });\nwriteFileSync('dist/server/main.js', ${JSON.stringify(service)});\n`;
    writeFileSync(join(root, 'build.mjs'), build);
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ name: 'launcher-check', type: 'module', scripts: { build: 'node build.mjs' } }),
    );
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const launch = async () => {
    const launcher = run('node', ['tools/start.js'], { cwd: root });
    expect(await launcher.exited).toStrictEqual({ code: 0, signal: null });
    return launcher.output();
  };

  it('builds when dist/ is missing, then runs the built service in its own process, not a child', async () => {
    const output = await launch();
    expect(output).toContain('dist/ is missing or older than the sources');
    expect(output).toContain('service ran in the launcher process');
  });

  it('does not build when dist/ is newer than every source', async () => {
    const output = await launch();
    expect(output).not.toContain('building');
    expect(output).toContain('service ran in the launcher process');
  });

  it('builds again once a source is newer than dist/', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'server', 'main.ts'), later, later);
    const output = await launch();
    expect(output).toContain('dist/ is missing or older than the sources');
    expect(output).toContain('service ran in the launcher process');
  });
});
