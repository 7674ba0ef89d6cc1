/**
 * The one launcher of service processes, for the process tests, the load check (`npm run load`)
 * and the benchmark's server children: it spawns a built script (the service by default),
 * keeps its output, and can wait until it answers `/healthz` on a free loopback port.
 * A package of its own so that tests/ and bench/ share it without importing each other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

/** The built service, as `npm start` runs it. `npm run build` makes it. */
export const SERVICE_MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));

export interface SpawnOptions {
  /** The script node runs; the built service unless given. */
  script?: string;
  /** Node flags, such as `--cpu-prof` or `--expose-gc`. */
  nodeFlags?: string[];
  /**
   * Start from the caller's whole environment. Off, the process gets only PATH and HOME besides
   * `env`, so no variable of a test run leaks into the configuration it tests.
   */
  inheritEnv?: boolean;
  /** Open an IPC channel (`process.send` in the child). */
  ipc?: boolean;
  /** Also copy the process's output to ours as it comes, so a long run shows its warnings. */
  echo?: boolean;
}

/** A process just spawned: its output so far and its exit, whether or not it starts. */
export interface SpawnedService {
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  readonly output: () => string;
  /** Resolves with the exit code when the process exits (null when killed by a signal). */
  readonly exited: () => Promise<number | null>;
}

export function spawnService(
  env: Record<string, string>,
  { script = SERVICE_MAIN, nodeFlags = [], inheritEnv = false, ipc = false, echo = false }: SpawnOptions = {},
): SpawnedService {
  if (!existsSync(script)) throw new Error(`${script} is missing: run npm run build first`);
  const base = inheritEnv ? process.env : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const child = spawn(process.execPath, [...nodeFlags, script], {
    env: { ...base, ...env },
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (echoTo: NodeJS.WriteStream) => (chunk: Buffer) => {
    output += chunk.toString();
    if (echo) echoTo.write(chunk);
  };
  child.stdout?.on('data', keep(process.stdout));
  child.stderr?.on('data', keep(process.stderr));
  const exit = exitCodeOf(child);
  return { child, output: () => output, exited: () => exit };
}

export interface StartOptions extends SpawnOptions {
  startTimeoutMs?: number;
  /** How often to ask `/healthz` while it starts. */
  pollIntervalMs?: number;
}

/** A process started by `startService`, answering on its port. */
export interface ServiceProcess extends SpawnedService {
  readonly pid: number;
  /** Base URL of the service, on a free loopback port. */
  readonly url: string;
  /** Milliseconds from spawning to the first 200 on `/healthz`. */
  readonly startupMs: number;
  /** Peak resident set size so far, in bytes (Linux /proc VmHWM; 0 where /proc is missing). */
  peakRssBytes(): Promise<number>;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns the script on a free loopback port (HOST and PORT in `env`) and waits for a 200 on `/healthz`. */
export async function startService(
  env: Record<string, string>,
  { startTimeoutMs = 30_000, pollIntervalMs = 20, ...spawnOptions }: StartOptions = {},
): Promise<ServiceProcess> {
  // A port chosen here rather than PORT=0, so readiness does not depend on the log level.
  const port = await freePort();
  const started = performance.now();
  const spawned = spawnService({ HOST: '127.0.0.1', PORT: String(port), ...env }, spawnOptions);
  const { child, exited } = spawned;
  await waitForHealthy(spawned, port, startTimeoutMs, pollIntervalMs);
  const startupMs = performance.now() - started;
  const pid = child.pid;
  if (pid === undefined) throw new Error('the service process has no pid');
  return {
    ...spawned,
    pid,
    url: `http://127.0.0.1:${port}`,
    startupMs,
    peakRssBytes: () => readPeakRss(pid),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited();
    },
  };
}

function exitCodeOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return once(child, 'exit').then(([code]) => code as number | null);
}

async function waitForHealthy({ child, output }: SpawnedService, port: number, timeoutMs: number, pollIntervalMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if ((await healthStatus(port)) === 200) return;
    const exited = child.exitCode !== null || child.signalCode !== null;
    if (exited || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start listening${exited ? '' : ` within ${timeoutMs} ms`}:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

/** node:http rather than fetch: its first call costs nothing to set up, so a start-up time is not skewed. */
function healthStatus(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    // A process that took the connection but does not answer is not ready either.
    request.setTimeout(1_000, () => request.destroy());
    request.once('error', () => {
      resolve(undefined);
    });
  });
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
