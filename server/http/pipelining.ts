import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { httpError } from '../errors/http-error.js';

/**
 * Requests pipelined on one connection take effect in the order they were sent.
 *
 * Node parses pipelined requests as they arrive and hands each to the app at once, so their
 * handlers would run at the same time (a DELETE could run before the POST sent ahead of it);
 * only their responses are written in order. RFC 9112 (section 9.3.2) allows parallel handling
 * of safe methods only, so the rule here is the simple sound one: a request starts once every
 * response before it on its connection has finished. Node tells exactly that: it gives a
 * response its socket (the `socket` event) only when the responses ahead of it are done.
 *
 * Node parses ahead whether or not the client reads its answers, so the requests waiting on one
 * connection are bounded (MAX_PIPELINED_REQUESTS): one more closes the connection, and the ones
 * waiting never take effect, as when the client closes it.
 */

/**
 * Whether requests sent before this one on its connection are still being answered: its
 * response has no socket yet. The one check a request sent alone (any keep-alive client) pays.
 */
export function isBehindEarlierRequests(reply: FastifyReply): boolean {
  return reply.raw.socket === null;
}

/** Told that the connection closed before the request's turn came. */
type OnClose = (error: Error) => void;

/** The requests waiting on each connection, for one app. */
export class PipelinedRequests {
  /** Per connection, one `close` listener telling every request still waiting on it (not one listener each). */
  private readonly waiting = new WeakMap<Socket, Set<OnClose>>();

  constructor(private readonly maxWaiting: number) {}

  /**
   * Calls `go` once the responses before this one have finished, or with an error when the
   * connection closes first: then the request never takes effect (there is no one to answer).
   */
  wait(reply: FastifyReply, go: (error?: Error) => void): void {
    const { socket } = reply.request.raw;
    if (socket.destroyed) {
      go(connectionClosed());
      return;
    }
    const waiting = this.waitingOn(socket);
    if (waiting.size >= this.maxWaiting) {
      tooDeep(reply.log, this.maxWaiting);
      go(httpError(400, `more than ${this.maxWaiting} pipelined requests were waiting on this connection: it is closed`));
      socket.destroy();
      return;
    }
    const onTurn = () => {
      waiting.delete(onClose);
      go();
    };
    const onClose: OnClose = (error) => {
      reply.raw.off('socket', onTurn);
      go(error);
    };
    waiting.add(onClose);
    reply.raw.once('socket', onTurn);
  }

  private waitingOn(socket: Socket): Set<OnClose> {
    let waiting = this.waiting.get(socket);
    if (waiting === undefined) {
      const created = new Set<OnClose>();
      socket.once('close', () => {
        for (const onClose of created) onClose(connectionClosed());
        created.clear();
      });
      this.waiting.set(socket, created);
      waiting = created;
    }
    return waiting;
  }
}

function tooDeep(log: FastifyBaseLogger, max: number): void {
  log.warn({ maxPipelinedRequests: max }, 'closing a connection with more pipelined requests waiting than MAX_PIPELINED_REQUESTS');
}

const connectionClosed = () => httpError(400, 'the connection closed before this pipelined request could start');
