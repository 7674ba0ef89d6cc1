import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The built service, as `npm start` runs it. `npm run build` makes it. */
export const SERVICE_MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));


/** The real service in a child process of its own, with its output kept for inspection. */
export interface ServiceProcess {
  readonly pid: number;
  /** Base URL of the service, on a free loopback port. */
  readonly url: string;
  /** Everything the service wrote to stdout and stderr so far. */
  output(): string;
  /** Peak resident set size so far, in bytes (Linux /proc VmHWM; 0 where /proc is missing). */
  peakRssBytes(): Promise<number>;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code when the process exits. */
  exited(): Promise<number | null>;
}

/** The built service just spawned: its output so far and its exit, whether or not it starts. */
export interface SpawnedService {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the service wrote to stdout and stderr so far. */
  readonly output: () => string;
  /** Resolves with the exit code when the process exits (null when killed by a signal). */
  readonly exited: () => Promise<number | null>;
}

/** Spawns the built service with only `env` (and PATH, HOME): no variable of the caller leaks into its configuration. */
export function spawnService(env: Record<string, string>): SpawnedService {
  if (!existsSync(SERVICE_MAIN)) throw new Error(`${SERVICE_MAIN} is missing: run npm run build first`);
  const child = spawn(process.execPath, [SERVICE_MAIN], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = exitCodeOf(child);
  return { child, output: () => output, exited: () => exit };
}

export async function startService(env: Record<string, string>, startTimeoutMs = 30_000): Promise<ServiceProcess> {
  // A port chosen here rather than PORT=0, so readiness does not depend on the log level.
  const port = await freePort();
  const { child, output, exited } = spawnService({ HOST: '127.0.0.1', PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(child, url, output, startTimeoutMs);
  const pid = child.pid;
  if (pid === undefined) throw new Error('the service process has no pid');
  return {
    pid,
    url,
    output,
    peakRssBytes: () => readPeakRss(pid),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited();
    },
    exited,
  };
}

function exitCodeOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return once(child, 'exit').then(([code]) => code as number | null);
}

/** A port free on the loopback interface now (the OS picks it; the service binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

async function waitForHealthy(child: ChildProcessWithoutNullStreams, url: string, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fetch(`${url}/healthz`).then((response) => response.ok, () => false)) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start listening:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function readPeakRss(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}
