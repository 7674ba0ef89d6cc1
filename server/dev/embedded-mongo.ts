// The embedded MongoDB of development and tests: a real mongod already on this machine, else the project's wire-protocol
// emulator. Nothing is downloaded unless asked: offline, a download attempt costs seconds of retries at every start.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DryMongoBinary, MongoBinary, MongoMemoryServer } from 'mongodb-memory-server';

export interface EmbeddedMongoOptions {
  warn?: ((message: string) => void) | undefined;
  port?: number | undefined;
  /** Where the MongoDB keeps its data, kept when it stops (`npm start`, `npm run dev`); unset: a fresh, temporary database. */
  dbPath?: string | undefined;
  /** The database its URI names, so that whoever takes the URI (mongosh, an app of one's own) sees the service's data. */
  dbName?: string | undefined;
}

export interface EmbeddedMongo {
  uri: string;
  kind: 'mongod' | 'emulator';
  description: string;
  stop(): Promise<void>;
  /** Stops it, keeping its port, and starts it again there (outage tests). */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

interface Binary {
  path: string;
  version: string;
  /** Given by MONGOMS_SYSTEM_BINARY (or the emulator), rather than found in mongodb-memory-server's cache. */
  system: boolean;
}

const STOP_TIMEOUT_MS = 15_000;
const PORT_ATTEMPTS = 5;

/** The emulator's launcher, from its workspace package (a dev dependency, as this module is). */
async function emulatorBinary(): Promise<string> {
  const { ensureBuilt } = await import('@plant-store/mongod-emulator');
  return ensureBuilt();
}

/** The version a mongod-compatible binary reports, so mongodb-memory-server sees no mismatch. */
function binaryVersion(binary: string): string | undefined {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return /db version v?(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

async function installedMongod(): Promise<Binary | undefined> {
  const options = await DryMongoBinary.generateOptions();
  const system = options.systemBinary !== '';
  // Throws when MONGOMS_SYSTEM_BINARY names no binary: a mistake to report, not to work around.
  const path = await DryMongoBinary.locateBinary(options);
  if (!path) return undefined;
  return { path, version: (system ? binaryVersion(path) : undefined) ?? options.version, system };
}

export async function downloadMongod(): Promise<string> {
  const options = await DryMongoBinary.generateOptions();
  return MongoBinary.getPath(options);
}

async function stopWithin(server: MongoMemoryServer, keepData: boolean): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STOP_TIMEOUT_MS);
  });
  try {
    // force: also removes the data folder, unless it is one to keep.
    await Promise.race([server.stop({ doCleanup: true, force: !keepData }).then(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function startMemoryServer(
  kind: 'mongod' | 'emulator',
  binary: Binary,
  description: string,
  options: EmbeddedMongoOptions,
): Promise<EmbeddedMongo> {
  if (options.dbPath) await mkdir(options.dbPath, { recursive: true });
  const server = await createMemoryServer(kind, binary, options);
  return {
    uri: server.getUri(options.dbName),
    kind,
    description,
    stop: () => stopWithin(server, options.dbPath !== undefined),
    pause: async () => {
      await server.stop({ doCleanup: false, force: false });
    },
    resume: () => server.start(true),
  };
}

async function createMemoryServer(kind: 'mongod' | 'emulator', binary: Binary, options: EmbeddedMongoOptions): Promise<MongoMemoryServer> {
  for (let attempt = 1; ; attempt++) {
    // A temporary folder of its own, removed when the start fails: mongodb-memory-server leaves its own behind then.
    const scratch = options.dbPath === undefined ? await mkdtemp(join(tmpdir(), 'mongo-mem-')) : undefined;
    try {
      return await MongoMemoryServer.create({
        // Its own process group: a Ctrl-C reaches the service, which drains its requests and then stops this MongoDB,
        // rather than both at once.
        spawn: { detached: true },
        binary: binary.system ? { systemBinary: binary.path, version: binary.version } : { version: binary.version },
        instance: {
          ip: '127.0.0.1',
          dbPath: options.dbPath ?? scratch,
          ...(options.port !== undefined && { port: options.port, portGeneration: false }),
          ...(options.dbPath && { storageEngine: 'wiredTiger' }),
          // The emulator with no data to keep: memory only, fresh and without an fsync per write (the tests).
          // Given after mongodb-memory-server's own --storageEngine, so it is the one the emulator reads.
          ...(!options.dbPath && kind === 'emulator' && { args: ['--storageEngine', 'inMemory'] }),
        },
      });
    } catch (error) {
      // The failed MongoDB may still be writing there as it exits (its lock, a journal, a checkpoint): rm retries then.
      if (scratch !== undefined) await rm(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      // A port found free is only a guess: another process may bind it first. A port the caller gave is theirs to
      // choose again. The failed MongoDB releases a kept data folder as it exits, which the next one waits for.
      if (options.port !== undefined || attempt === PORT_ATTEMPTS || !isPortTaken(error)) throw error;
      options.warn?.(`${error.message} by another process when MongoDB came to bind it (the error above): trying another port`);
    }
  }
}

function isPortTaken(error: unknown): error is Error {
  return error instanceof Error && /^Port "\d+" already in use$/.test(error.message);
}

export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const real = await installedMongod();
  if (real) {
    return startMemoryServer('mongod', real, `mongod ${real.version} (${real.path}) via mongodb-memory-server`, options);
  }
  const emulator = await emulatorBinary();
  const version = binaryVersion(emulator);
  if (!version) throw new Error(`${emulator} --version did not report a version: run npm run build`);
  options.warn?.(
    'No mongod installed or cached: using the mongod emulator (tools/mongod-emulator). ' +
      'For a real MongoDB set MONGODB_URI or MONGOMS_SYSTEM_BINARY=/path/to/mongod, or run npm run mongod:download once.',
  );
  return startMemoryServer(
    'emulator',
    { path: emulator, version, system: true },
    `mongod emulator ${version} via mongodb-memory-server`,
    options,
  );
}
