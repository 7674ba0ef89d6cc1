// Entry point of the emulator process (started by bin/mongod): parses mongod's flags, answers
// --version, listens, announces "Waiting for connections" like mongod, and exits 0 on SIGINT,
// SIGTERM or the shutdown command.
import { parseArgs } from './args.js';
import { log } from './log.js';
import { startServer } from './server.js';
import { EMULATOR_VERSION } from './version.js';

function stop(reason: string): never {
  log('I', 'CONTROL', 20565, 'Now exiting', { reason });
  process.exit(0);
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
    process.stdout.write(`db version v${EMULATOR_VERSION}\nplant-store mongod emulator (in-memory, speaks the MongoDB wire protocol; not a real mongod)\n`);
    return;
  }
  for (const warning of options.warnings) process.stderr.write(`mongod emulator: warning: ${warning}\n`);
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    const server = await startServer({ port: options.port, bindIps: options.bindIps, testCommands: options.testCommands, onShutdown: () => stop('shutdown command') });
    log('I', 'NETWORK', 23016, 'Waiting for connections', { port: server.port, ssl: 'off', emulator: true, dbPath: options.dbpath ?? null });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // mongodb-memory-server recognises "Address already in use" in the log.
    const text = message.includes('EADDRINUSE') ? `Address already in use: ${message}` : message;
    log('E', 'CONTROL', 20568, `Error setting up listener: ${text}`, { port: options.port });
    process.exit(48);
  }
}

void main();
