// Entry point of the emulator process (started by bin/mongod): parses mongod's flags, answers
// --version, loads its --dbpath (storage/durable-store.ts), listens, announces "Waiting for
// connections" like mongod, and exits 0 on SIGINT, SIGTERM or the shutdown command, checkpointed.
import { parseArgs, type Options } from './args.js';
import { log } from './log.js';
import { startServer } from './server.js';
import { DbPathInUse } from './storage/dbpath-lock.js';
import { DurableStore } from './storage/durable-store.js';
import { Store } from './store.js';
import { EMULATOR_VERSION } from './version.js';

/** mongod's storage engines that keep nothing on disk. */
const IN_MEMORY_ENGINES = new Set(['inMemory', 'ephemeralForTest']);
/** How long a start waits for the previous holder of the dbpath to finish its shutdown (mongodb-memory-server's watchdog stops an orphan within 2 s). */
const LOCK_WAIT_MS = 5_000;

let durable: DurableStore | undefined;

function stop(reason: string): never {
  try {
    durable?.close();
  } catch (error) {
    log('E', 'STORAGE', 22320, 'Checkpoint at shutdown failed: the journal is kept and replayed at the next start', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  log('I', 'CONTROL', 20565, 'Now exiting', { reason });
  process.exit(0);
}

/** The data: the dbpath's when there is one and the engine keeps data on disk; else a new in-memory store. */
async function openStore(options: Options): Promise<Store> {
  const store = new Store();
  if (options.dbpath === undefined || IN_MEMORY_ENGINES.has(options.storageEngine ?? '')) return store;
  try {
    const opened = await DurableStore.open(store, options.dbpath, { lockWaitMs: LOCK_WAIT_MS });
    durable = opened.durable;
    log('I', 'STORAGE', 22430, 'Data loaded from the dbpath', { dbPath: options.dbpath, ...opened.recovery });
    return store;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // As mongod says it, which mongodb-memory-server recognises and passes on.
    log('E', 'CONTROL', 20557, 'DBException in initAndListen, terminating', {
      error: error instanceof DbPathInUse ? `DBPathInUse: ${message}` : message,
      dbPath: options.dbpath,
    });
    // mongod's exit code for a dbpath it cannot use.
    process.exit(100);
  }
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`mongod emulator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  if (options.version) {
    process.stdout.write(
      `db version v${EMULATOR_VERSION}\nplant-store mongod emulator (keeps its data in --dbpath, speaks the MongoDB wire protocol; not a real mongod)\n`,
    );
    return;
  }
  for (const warning of options.warnings) process.stderr.write(`mongod emulator: warning: ${warning}\n`);
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const store = await openStore(options);
  try {
    const server = await startServer({
      port: options.port,
      bindIps: options.bindIps,
      testCommands: options.testCommands,
      onShutdown: () => stop('shutdown command'),
      store,
      journal: durable,
    });
    log('I', 'NETWORK', 23016, 'Waiting for connections', {
      port: server.port,
      ssl: 'off',
      emulator: true,
      dbPath: options.dbpath ?? null,
      durable: durable !== undefined,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // mongodb-memory-server recognises "Address already in use" in the log.
    const text = message.includes('EADDRINUSE') ? `Address already in use: ${message}` : message;
    log('E', 'CONTROL', 20568, `Error setting up listener: ${text}`, { port: options.port });
    durable?.close();
    process.exit(48);
  }
}

void main();
