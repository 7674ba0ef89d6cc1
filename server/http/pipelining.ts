import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { httpError } from '../errors/http-error.js';

/**
 * Pipelined requests take effect in order: Node hands each to the app at once, but RFC 9112 section 9.3.2 allows parallel
 * handling of safe methods only. Node parses ahead whether or not the client reads, so the waiting requests are bounded.
 */

/** No socket yet means earlier responses are still in flight. */
export function isBehindEarlierRequests(reply: FastifyReply): boolean {
  return reply.raw.socket === null;
}

type OnClose = (error: Error) => void;

export class PipelinedRequests {
  private readonly waiting = new WeakMap<Socket, Set<OnClose>>();

  constructor(private readonly maxWaiting: number) {}

  /** If the connection closes first, the request never takes effect: there is no one to answer. */
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
