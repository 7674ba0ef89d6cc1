// The one place that picks MONGODB_URI or the embedded MongoDB, whose module and dev dependency are loaded only then,
// so a production install (`npm ci --omit=dev`) runs without them.

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
  /** Where a started MongoDB keeps its data across runs; unset: a fresh, temporary database. */
  dbPath?: string | undefined;
  /** The database a started MongoDB's URI names. */
  dbName?: string | undefined;
}

export async function resolveMongo(options: ResolveMongoOptions): Promise<MongoSource> {
  if (options.uri) {
    return { uri: options.uri, kind: 'uri', description: 'MongoDB at MONGODB_URI', stop: () => Promise.resolve() };
  }
  const { startEmbeddedMongo } = await loadEmbeddedMongo();
  return startEmbeddedMongo({ warn: options.warn, port: options.port, dbPath: options.dbPath, dbName: options.dbName });
}

/** The embedded-MongoDB module, or an error that says what to set when its dev dependency is absent. */
async function loadEmbeddedMongo(): Promise<typeof import('./embedded-mongo.js')> {
  try {
    return await import('./embedded-mongo.js');
  } catch (error) {
    if (isModuleNotFound(error)) {
      throw new Error(
        'MONGODB_URI is not set, and the embedded MongoDB of development is not installed here ' +
          '(mongodb-memory-server is a dev dependency): set MONGODB_URI=mongodb://<host>:27017/plantstore',
      );
    }
    throw error;
  }
}

function isModuleNotFound(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === 'ERR_MODULE_NOT_FOUND' &&
    /mongodb-memory-server|embedded-mongo/.test(error.message)
  );
}
