// Spawns bin/mongod directly, for the process and wire tests and the driver suite's global setup.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '@plant-store/mongod-emulator';

/** The package's own launcher; a missing build fails here, saying how to build it. */
export const EMULATOR_BIN = ensureBuilt();

export interface LogLine {
  msg: string;
  s: string;
  attr: Record<string, unknown>;
}

export interface RunningEmulator {
  child: ChildProcessWithoutNullStreams;
  port: number;
  /** Milliseconds from spawn to the "Waiting for connections" line. */
  startupMs: number;
  stdout: () => string;
  stderr: () => string;
  logLines: () => LogLine[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
}

export interface StartOptions {
  /** A dbpath to keep (the durability tests); unset: a new one, removed when the emulator stops. */
  dbpath?: string;
}

export function startEmulator(extraArgs: readonly string[] = [], { dbpath }: StartOptions = {}): Promise<RunningEmulator> {
  const startedAt = performance.now();
  const ownDbpath = dbpath === undefined ? mkdtempSync(join(tmpdir(), 'mongod-emulator-')) : undefined;
  const child = spawn(EMULATOR_BIN, ['--port', '0', '--dbpath', dbpath ?? ownDbpath ?? '', ...extraArgs]);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      if (ownDbpath !== undefined) rmSync(ownDbpath, { recursive: true, force: true });
      resolve({ code, signal });
    });
  });
  const logLines = (): LogLine[] =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`emulator did not start: ${out} ${err}`));
    }, 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = logLines().find((line) => line.msg === 'Waiting for connections');
      if (ready && timer.hasRef()) {
        clearTimeout(timer);
        timer.unref();
        resolve({
          child,
          port: ready.attr.port as number,
          startupMs: performance.now() - startedAt,
          stdout: () => out,
          stderr: () => err,
          logLines,
          exited,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            await exited;
          },
        });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited early with ${String(code)}: ${out} ${err}`));
    });
  });
}
