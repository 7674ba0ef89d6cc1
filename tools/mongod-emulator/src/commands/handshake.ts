// Connection-level and server-info commands: hello/isMaster, ping, buildInfo, shutdown, sessions.
import { Int32, Long } from 'bson';
import { CommandError } from '../errors.js';
import { EMULATOR_VERSION } from '../version.js';
import { ShutdownRequested, type CommandContext, type CommandHandler } from './context.js';

function hello(context: CommandContext): Record<string, unknown> {
  // No topologyVersion: the driver then polls hello instead of using streaming (awaitable) hello.
  return {
    ...(context.command.helloOk === true ? { helloOk: true } : {}),
    ismaster: true,
    isWritablePrimary: true,
    maxBsonObjectSize: new Int32(16 * 1024 * 1024),
    maxMessageSizeBytes: new Int32(48_000_000),
    maxWriteBatchSize: new Int32(100_000),
    localTime: new Date(),
    logicalSessionTimeoutMinutes: new Int32(30),
    connectionId: new Int32(context.connectionId),
    minWireVersion: new Int32(0),
    maxWireVersion: new Int32(25),
    readOnly: false,
  };
}

const buildInfo: CommandHandler = () => ({
  version: EMULATOR_VERSION,
  gitVersion: 'plant-store-mongod-emulator',
  versionArray: [...EMULATOR_VERSION.split('.').map((part) => new Int32(Number(part))), new Int32(0)],
  bits: new Int32(64),
  debug: false,
  maxBsonObjectSize: new Int32(16 * 1024 * 1024),
  storageEngines: ['inMemory'],
  modules: [],
});

const shutdown: CommandHandler = (context) => {
  if (context.db !== 'admin') throw new CommandError('Unauthorized', 'shutdown must run from the admin database');
  throw new ShutdownRequested('shutdown command');
};

export const handshakeCommands: Record<string, CommandHandler> = {
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: () => ({}),
  buildInfo,
  buildinfo: buildInfo,
  getParameter: (context) => ({
    ...(context.command.featureCompatibilityVersion === undefined
      ? {}
      : { featureCompatibilityVersion: { version: EMULATOR_VERSION.split('.').slice(0, 2).join('.') } }),
  }),
  serverStatus: (context) => ({
    host: `127.0.0.1:${context.server.port}`,
    version: EMULATOR_VERSION,
    process: 'mongod',
    pid: Long.fromNumber(process.pid),
    uptime: (Date.now() - context.server.startedAt.getTime()) / 1000,
    localTime: new Date(),
    connections: { current: new Int32(0) },
  }),
  endSessions: () => ({}),
  killSessions: () => ({}),
  whatsmyuri: () => ({ you: '127.0.0.1' }),
  shutdown,
};
