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
