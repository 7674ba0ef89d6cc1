// The development data folder: what `npm start` and `npm run dev` keep across restarts when nothing else is configured.
// Plain files and no dev dependency: the service and the CLI read it only outside production.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DevFolder {
  path: string;
  /** The embedded MongoDB's --dbpath. */
  mongodData: string;
  tokenFile: string;
  /** The MongoDB URI of the embedded MongoDB while it runs. */
  uriFile: string;
}

export function devFolder(path: string): DevFolder {
  return { path, mongodData: join(path, 'mongod-data'), tokenFile: join(path, 'token'), uriFile: join(path, 'mongodb-uri') };
}

/** The development token kept in the folder, made on first use. */
export async function keptDevToken(folder: DevFolder): Promise<string> {
  const kept = await readFile(folder.tokenFile, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (kept !== '') return kept;
  await mkdir(folder.path, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  await writeFile(folder.tokenFile, `${token}\n`, { mode: 0o600 });
  return token;
}

export async function recordMongoUri(folder: DevFolder, uri: string): Promise<void> {
  await writeFile(folder.uriFile, `${uri}\n`);
}

/** Removes the recorded URI, if it is still this one (another run may have replaced it). */
export async function forgetMongoUri(folder: DevFolder, uri: string): Promise<void> {
  if ((await recordedMongoUri(folder)) === uri) await rm(folder.uriFile, { force: true });
}

export async function recordedMongoUri(folder: DevFolder): Promise<string | undefined> {
  const text = await readFile(folder.uriFile, 'utf8').then(
    (content) => content.trim(),
    () => '',
  );
  return text === '' ? undefined : text;
}

/** A `mongod` binary (mongodb-memory-server's are `mongod-<platform>-<version>`), or the emulator's package. */
const RUNS_MONGOD = /(^|\/)mongod([-\s/]|$)/;

/**
 * The live process holding the MongoDB data's lock (mongod and the emulator write their pid in `mongod.lock`), if any.
 * A killed MongoDB leaves its pid there, which another process may be given later: that one is no holder.
 */
export async function mongodHoldingData(folder: DevFolder): Promise<number | undefined> {
  const pid = Number(await readFile(join(folder.mongodData, 'mongod.lock'), 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0 || !(await isAlive(pid))) return undefined;
  const commandLine = await commandLineOf(pid);
  return commandLine === undefined || RUNS_MONGOD.test(commandLine) ? pid : undefined;
}

async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed MongoDB whose parent died too lingers as a zombie until its new parent reaps it.
  return (await processStat(pid))?.state !== 'Z';
}

/** A process's state and parent, where the system tells them (Linux, by /proc). */
async function processStat(pid: number): Promise<{ state: string; parent: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The fields after the command name, which is in parentheses and may hold spaces: state, parent, ...
  const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return state === undefined || parent === undefined ? undefined : { state, parent: Number(parent) };
}

/** A process's command line, where the system tells it (Linux, by /proc). */
async function commandLineOf(pid: number): Promise<string | undefined> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return text?.replaceAll('\0', ' ');
}

/** Whether the process runs `npm start`, `npm run dev` or the service itself: an orphaned MongoDB's new parent does not. */
async function runsTheService(pid: number): Promise<boolean> {
  return /tools\/start\.js|server\/dev\/dev-loop|server\/main\.[jt]s/.test((await commandLineOf(pid)) ?? '');
}

/**
 * Refuses to start a second MongoDB on data another run is using, naming that run's process where the system tells it:
 * stopping only its MongoDB would leave it serving 503s.
 */
export async function assertDataFree(folder: DevFolder): Promise<void> {
  const holder = await mongodHoldingData(folder);
  if (holder === undefined) return;
  const owner = (await processStat(holder))?.parent;
  const holders =
    owner !== undefined && (await runsTheService(owner))
      ? `another npm start or npm run dev (process ${owner}; its MongoDB is process ${holder})`
      : `the MongoDB of another npm start or npm run dev (process ${holder})`;
  throw new Error(
    `${folder.mongodData} is in use by ${holders}: stop that one first, or give this one another folder with PLANT_STORE_DEV_DIR`,
  );
}
