// The dbpath's lock, as mongod's mongod.lock: the holder's process id, so that a second emulator on
// the same dbpath refuses to start rather than both writing one journal. A lock whose process is gone
// (a SIGKILL leaves it behind) is taken over.
import { closeSync, fsyncSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'mongod.lock';

/** mongod's DBPathInUse. */
export class DbPathInUse extends Error {
  constructor(
    readonly path: string,
    readonly holder: number,
  ) {
    super(
      `Unable to lock the lock file: ${path} (held by process ${holder}). Another mongod instance is already running on the ${join(path, '..')} directory`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** How long a lock file without a process id is taken for one being written, before it counts as stale. */
const UNWRITTEN_LOCK_GRACE_MS = 1_000;

/** Takes the lock, waiting up to `waitMs` for a live holder to stop (a previous run shutting down). */
export async function lockDbPath(dbpath: string, waitMs: number): Promise<() => void> {
  const path = join(dbpath, LOCK_FILE);
  const startedAt = Date.now();
  for (;;) {
    if (tryCreate(path)) {
      return () => {
        if (holderOf(path) === process.pid) unlinkSync(path);
      };
    }
    const holder = holderOf(path);
    const waited = Date.now() - startedAt;
    const held = holder === undefined ? waited < UNWRITTEN_LOCK_GRACE_MS : holder !== process.pid && isAlive(holder);
    if (!held) {
      unlinkSync(path);
      continue;
    }
    if (waited >= waitMs) throw new DbPathInUse(path, holder ?? 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
