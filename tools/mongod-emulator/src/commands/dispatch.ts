// Routes a command document to its handler and shapes the reply like mongod: `ok: 1` added on
// success, `{ ok: 0, errmsg, code, codeName }` on failure, CommandNotFound for unknown commands.
// Before a handler runs, the checks mongod makes on every command: transactions (refused on a
// standalone), the writeConcern, options the emulator does not implement, and the failCommand fail point.
import { CommandError, notImplemented } from '../errors.js';
import type { Doc } from '../values.js';
import type { CommandContext, CommandHandler } from './context.js';
import { CloseConnectionRequested, ShutdownRequested } from './context.js';
import { findAndModifyCommands } from './find-and-modify.js';
import { handshakeCommands } from './handshake.js';
import { indexCommands } from './index-commands.js';
import { namespaceCommands } from './namespaces.js';
import { readCommands } from './reads.js';
import { testCommands } from './test-commands.js';
import { isRefusedCommand, refuseUnsupported } from './unsupported.js';
import { checkWriteConcern } from './write-concern.js';
import { writeCommands } from './writes.js';

const handlers = new Map<string, CommandHandler>(
  Object.entries({
    ...handshakeCommands,
    ...namespaceCommands,
    ...writeCommands,
    ...readCommands,
    ...findAndModifyCommands,
    ...indexCommands,
  }),
);
const testHandlers = new Map<string, CommandHandler>(Object.entries(testCommands));

export function commandName(command: Doc): string {
  return Object.keys(command)[0] ?? '';
}

function handlerFor(name: string, context: CommandContext): CommandHandler {
  const handler = handlers.get(name) ?? (context.server.testCommands ? testHandlers.get(name) : undefined);
  if (handler) return handler;
  if (isRefusedCommand(name)) throw notImplemented(`the ${name} command`);
  throw new CommandError('CommandNotFound', `no such command: '${name}'`);
}

function injectFailure(name: string, context: CommandContext): void {
  const failure = context.failPoints.take(name);
  if (failure?.kind === 'closeConnection') throw new CloseConnectionRequested(`failCommand closed the connection on ${name}`);
  if (failure) throw CommandError.withCode(failure.code, "Failing command via 'failCommand' failpoint");
}

/** Runs one command; ShutdownRequested and CloseConnectionRequested propagate to the caller. */
export function runCommand(context: CommandContext): Doc {
  const name = commandName(context.command);
  try {
    const handler = handlerFor(name, context);
    // A standalone mongod refuses transactions and retryable-write transaction numbers alike.
    if (context.command.txnNumber !== undefined) {
      throw new CommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
    }
    injectFailure(name, context);
    checkWriteConcern(name, context.command);
    refuseUnsupported(name, context.command);
    return { ...handler(context), ok: 1 };
  } catch (error) {
    if (error instanceof CommandError) return error.toReply();
    if (error instanceof ShutdownRequested || error instanceof CloseConnectionRequested) throw error;
    // Programming errors in the emulator still answer the client instead of dropping it.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: 0, errmsg: `internal emulator error in ${name}: ${message}`, code: 1, codeName: 'InternalError' };
  }
}
