// One client connection: frames the byte stream, runs each command synchronously (so replies keep
// request order) and writes the reply. Protocol violations close only this connection.
import type { Socket } from 'node:net';
import { runCommand, commandName } from './commands/dispatch.js';
import { CloseConnectionRequested, ShutdownRequested, type ServerInfo } from './commands/context.js';
import type { CursorRegistry } from './cursors.js';
import type { FailPoints } from './failpoints.js';
import { log } from './log.js';
import type { Store } from './store.js';
import { MessageSplitter, ProtocolError } from './wire/framing.js';
import { decodeRequest, encodeReply } from './wire/opcodes.js';

export interface Shared {
  store: Store;
  /** Writes the journal and waits for the disk; unset when the data lives in memory only. */
  journal: { flush(): void } | undefined;
  cursors: CursorRegistry;
  failPoints: FailPoints;
  server: ServerInfo;
}

/** As mongod, which stops rather than answer writes it cannot journal (a full or failing disk). */
function flushOrExit(shared: Shared): void {
  try {
    shared.journal?.flush();
  } catch (error) {
    log('E', 'STORAGE', 22435, 'Writing the journal failed: exiting without answering', {
      error: error instanceof Error ? error.message : String(error),
    });
    process.exit(14);
  }
}

export function serveConnection(socket: Socket, connectionId: number, shared: Shared): void {
  const splitter = new MessageSplitter();
  const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
  socket.setNoDelay(true);
  log('I', 'NETWORK', 22943, 'Connection accepted', { remote, connectionId });

  const drop = (reason: string): void => {
    log('W', 'NETWORK', 22988, 'Closing connection after malformed message', { remote, connectionId, error: reason });
    socket.destroy();
  };

  socket.on('data', (chunk: Buffer) => {
    if (socket.destroyed) return;
    try {
      for (const message of splitter.push(chunk)) {
        const request = decodeRequest(message);
        const reply = runCommand({ ...shared, connectionId, db: request.db, command: request.command });
        // Journalled before it is answered: a write acknowledged is a write a crash keeps.
        flushOrExit(shared);
        if (reply.code === 1)
          log('E', 'COMMAND', 21962, 'Internal error while running a command', {
            command: commandName(request.command),
            error: reply.errmsg,
          });
        if (!request.noReply) socket.write(encodeReply(request, reply));
      }
    } catch (error) {
      if (error instanceof ShutdownRequested) {
        socket.destroy();
        shared.server.requestShutdown();
      } else if (error instanceof CloseConnectionRequested) {
        log('I', 'NETWORK', 22944, 'Closing connection: failCommand fail point', { remote, connectionId });
        socket.destroy();
      } else if (error instanceof ProtocolError) {
        drop(error.message);
      } else {
        drop(`unexpected failure: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  });
  socket.on('error', (error) => {
    log('I', 'NETWORK', 22989, 'Connection error', { remote, connectionId, error: error.message });
  });
  socket.on('close', () => {
    log('I', 'NETWORK', 22944, 'Connection ended', { remote, connectionId });
  });
}
