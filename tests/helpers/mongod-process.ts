// A MongoDB as a process of its own on a fixed loopback port, which a test starts late, kills,
// starts again on the same port, or freezes (SIGSTOP) and thaws: what an orchestrator or a host
// does to a database. The binary is MONGOMS_SYSTEM_BINARY's mongod when set, else the project's
// emulator; both keep what they acknowledged in --dbpath across a kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '@plant-store/mongod-emulator';
import { freePort } from '@plant-store/service-launcher';

const READY_LINE = 'Waiting for connections';
const START_TIMEOUT_MS = 20_000;

export interface MongodProcess {
  readonly port: number;
  uri(dbName: string): string;
  /** Starts it (again) on its port; resolves once it accepts connections, with that moment (performance.now()). */
  start(): Promise<number>;
  /** SIGKILL: gone at once, connections reset; resolves once it exited. */
  kill(): Promise<void>;
  /** SIGSTOP: still listening, answering nothing, as a hung or partitioned server. */
  freeze(): void;
  /** SIGCONT; returns that moment (performance.now()). */
  thaw(): number;
  /** What it wrote, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

export async function mongodProcess(): Promise<MongodProcess> {
  const port = await freePort();
  const binary = process.env.MONGOMS_SYSTEM_BINARY ?? ensureBuilt();
  const dbPath = await mkdtemp(join(tmpdir(), 'plant-store-mongod-'));
  let child: ChildProcess | undefined;
  let output = '';

  const exited = (process: ChildProcess) =>
    process.exitCode !== null || process.signalCode !== null ? Promise.resolve() : once(process, 'exit').then(() => undefined);

  const kill = async () => {
    if (!child) return;
    const running = child;
    child = undefined;
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited(running);
  };

  return {
    port,
    uri: (dbName) => `mongodb://127.0.0.1:${port}/${dbName}`,
    start: async () => {
      if (child) throw new Error('mongod is already running');
      const started = spawn(binary, ['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dbPath], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      let sinceStart = '';
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`mongod did not start within ${START_TIMEOUT_MS} ms:\n${sinceStart}`));
        }, START_TIMEOUT_MS);
        const keep = (chunk: Buffer) => {
          output += chunk.toString();
          sinceStart += chunk.toString();
          if (sinceStart.includes(READY_LINE)) {
            clearTimeout(timer);
            resolve(performance.now());
          }
        };
        started.stdout.on('data', keep);
        started.stderr.on('data', keep);
        started.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`mongod exited (${signal ?? code}) before it was ready:\n${sinceStart}`));
        });
      });
    },
    kill,
    freeze: () => {
      child?.kill('SIGSTOP');
    },
    thaw: () => {
      child?.kill('SIGCONT');
      return performance.now();
    },
    output: () => output,
    stop: async () => {
      await kill();
      await rm(dbPath, { recursive: true, force: true });
    },
  };
}
