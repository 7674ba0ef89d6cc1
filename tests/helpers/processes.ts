// Commands run as a user would (npm start, npm run dev, npm ci, node dist/server/main.js), with
// their output kept, and the processes they leave behind found through /proc.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Command {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** What was written to stdout alone. */
  stdout(): string;
  /** The first match of `pattern` in the output at or after `from`; fails if the process exits first. */
  waitFor(pattern: RegExp, options?: { timeoutMs?: number; from?: number }): Promise<RegExpExecArray>;
  exited: Promise<Exit>;
}

export interface RunOptions {
  cwd?: string;
  /** The whole environment besides PATH and HOME: nothing of the test runner's leaks in. */
  env?: Record<string, string>;
  /** A process group of its own, so the group can be signalled as a terminal does. */
  detached?: boolean;
}

export function run(command: string, args: string[], options: RunOptions = {}): Command {
  const child = spawn(command, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    detached: options.detached ?? false,
  });
  if (child.pid === undefined) throw new Error(`${command} did not start`);
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  const waitFor = async (pattern: RegExp, { timeoutMs = 30_000, from = 0 } = {}) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output.slice(from));
      if (match) return match;
      if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`no ${String(pattern)} in the output of ${command} ${args.join(' ')}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { child, pid: child.pid, output: () => output, stdout: () => stdout, waitFor, exited };
}

/** Runs a command to its end; rejects with its output when it fails. */
export async function runToEnd(command: string, args: string[], options: RunOptions = {}): Promise<{ stdout: string; ms: number }> {
  const started = performance.now();
  const running = run(command, args, options);
  const { code, signal } = await running.exited;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${String(code ?? signal)}):\n${running.output()}`);
  return { stdout: running.stdout(), ms: performance.now() - started };
}

/** The processes under `pid` now, children first (Linux /proc). */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** Whether a process still runs (a zombie waiting for its parent counts as ended). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The address in the service's "plant store listening on <address>" log line. */
export const LISTENING = /plant store listening on (http:\/\/[\d.]+:\d+)/;

/** SIGKILLs whichever of these processes, and of those under them, still run: a failed test leaves nothing behind. */
export function killIfRunning(pids: Iterable<number>): void {
  const all = [...pids].flatMap((pid) => [pid, ...descendantsOf(pid)]);
  for (const pid of all) {
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }
}

/** A process's command line, its arguments joined by spaces ('' once it has ended). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
