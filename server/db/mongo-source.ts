// The one place that decides which MongoDB the service's embedded default and the tests use:
//   1. an explicit URI (MONGODB_URI, passed in by the caller from validated config);
//   2. a real mongod run by mongodb-memory-server (MONGOMS_SYSTEM_BINARY, a cached binary, or a download);
//   3. only when no mongod can be had: mongodb-memory-server running our wire-protocol emulator
//      (tools/mongod-emulator), with one warning saying so.
// A failed download is remembered for a few hours in a marker file so offline runs do not pay the
// download timeouts every time.
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MongoMemoryServer } from 'mongodb-memory-server';

export type MongoSourceKind = 'uri' | 'mongod' | 'emulator';

export interface MongoSource {
  uri: string;
  kind: MongoSourceKind;
  description: string;
  stop(): Promise<void>;
  /** Started MongoDBs only (outage tests): stop it, keeping its port, and start it again there. */
  pause?(): Promise<void>;
  resume?(): Promise<void>;
}

export interface ResolveMongoOptions {
  uri?: string | undefined;
  warn?: (message: string) => void;
  /** The port a started MongoDB listens on; unset: a free one. */
  port?: number | undefined;
}

const DOWNLOAD_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;
const STOP_TIMEOUT_MS = 15_000;
const MARKER_FILE = join(tmpdir(), 'plant-store-mongod-download-failed.json');

/** Loaded only when a MongoDB must be started: a service given MONGODB_URI starts faster without it. */
const memoryServer = () => import('mongodb-memory-server');

/** The emulator's launcher, from its workspace package; loaded only when no real mongod can be had. */
async function emulatorBinary(): Promise<string> {
  const { ensureBuilt } = await import('@plant-store/mongod-emulator');
  return ensureBuilt();
}

/** The version a mongod-compatible binary reports, so mongodb-memory-server sees no mismatch. */
function binaryVersion(binary: string): string | undefined {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /db version v?(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

async function downloadRecentlyFailed(version: string): Promise<boolean> {
  try {
    const marker = JSON.parse(await readFile(MARKER_FILE, 'utf8')) as { version?: unknown; failedAt?: unknown };
    return marker.version === version && typeof marker.failedAt === 'number' && Date.now() - marker.failedAt < DOWNLOAD_RETRY_AFTER_MS;
  } catch {
    return false;
  }
}

async function rememberDownloadFailure(version: string, reason: string): Promise<void> {
  await mkdir(dirname(MARKER_FILE), { recursive: true });
  await writeFile(MARKER_FILE, JSON.stringify({ version, failedAt: Date.now(), reason }));
}

/** A real mongod binary: configured or cached first, then a download unless one failed lately. */
async function findRealMongod(): Promise<{ binary: string; version: string; systemBinary: boolean } | undefined> {
  const { DryMongoBinary, MongoBinary } = await memoryServer();
  const options = await DryMongoBinary.generateOptions();
  const systemBinary = options.systemBinary !== '';
  const existing = await DryMongoBinary.locateBinary(options);
  if (existing) return { binary: existing, version: (systemBinary ? binaryVersion(existing) : undefined) ?? options.version, systemBinary };
  if (await downloadRecentlyFailed(options.version)) return undefined;
  try {
    return { binary: await MongoBinary.getPath(options), version: options.version, systemBinary: false };
  } catch (error) {
    await rememberDownloadFailure(options.version, error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

async function stopWithin(server: MongoMemoryServer): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STOP_TIMEOUT_MS);
  });
  try {
    await Promise.race([server.stop({ doCleanup: true, force: true }).then(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function startMemoryServer(kind: 'mongod' | 'emulator', binary: { binary: string; version: string; systemBinary: boolean }, description: string, port?: number): Promise<MongoSource> {
  const { MongoMemoryServer } = await memoryServer();
  const server = await MongoMemoryServer.create({
    binary: binary.systemBinary ? { systemBinary: binary.binary, version: binary.version } : { version: binary.version },
    instance: { ip: '127.0.0.1', ...(port !== undefined && { port, portGeneration: false }) },
  });
  return {
    uri: server.getUri(),
    kind,
    description,
    stop: () => stopWithin(server),
    pause: async () => {
      await server.stop({ doCleanup: false, force: false });
    },
    resume: () => server.start(true),
  };
}

export async function resolveMongo(options: ResolveMongoOptions): Promise<MongoSource> {
  if (options.uri) {
    return { uri: options.uri, kind: 'uri', description: 'MongoDB at MONGODB_URI', stop: () => Promise.resolve() };
  }
  const real = await findRealMongod();
  if (real) {
    return startMemoryServer('mongod', real, `mongod ${real.version} (${real.binary}) via mongodb-memory-server`, options.port);
  }
  const emulator = await emulatorBinary();
  const version = binaryVersion(emulator);
  if (!version) throw new Error(`${emulator} --version did not report a version: run npm run build`);
  options.warn?.(
    'No mongod available (none installed or cached, and the download failed): using the in-memory mongod emulator ' +
      '(tools/mongod-emulator). For a real MongoDB set MONGODB_URI, or MONGOMS_SYSTEM_BINARY=/path/to/mongod, ' +
      `or delete ${MARKER_FILE} to retry the download.`,
  );
  return startMemoryServer('emulator', { binary: emulator, version, systemBinary: true }, `mongod emulator ${version} via mongodb-memory-server`, options.port);
}
