import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { httpError } from '../errors/http-error.js';
import { answerInFlight } from './answer-in-flight.js';

/**
 * Pipelined requests take effect in order: Node hands each to the app at once, but RFC 9112 section 9.3.2 allows parallel
 * handling of safe methods only. Node parses ahead whether or not the client reads, so the waiting requests are bounded.
 */

/** No socket yet means earlier responses are still in flight. */
export function isBehindEarlierRequests(reply: FastifyReply): boolean {
  return reply.raw.socket === null;
}

type OnClose = () => void;

/** The requests waiting their turn on one connection (their methods), and whether it is closing for having too many. */
interface Connection {
  waiting: Map<OnClose, string>;
  closing: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class PipelinedRequests {
  private readonly connections = new WeakMap<Socket, Connection>();

  constructor(private readonly maxWaiting: number) {}

  /**
   * If the connection closes first, the request never takes effect: there is no one to answer, so `end` is called with
   * the reply hijacked, and nothing more is done for it (a pipelining client refused by the thousand costs no answers).
   */
  wait(reply: FastifyReply, go: (error?: Error) => void, end: () => void): void {
    const { socket } = reply.request.raw;
    const unanswered = () => {
      reply.hijack();
      end();
    };
    if (socket.destroyed) {
      unanswered();
      return;
    }
    const connection = this.connectionOf(socket);
    const { waiting } = connection;
    if (connection.closing || waiting.size >= this.maxWaiting) {
      if (!connection.closing) {
        tooDeep(reply.log, this.maxWaiting);
        // Reads alone before it: nothing of theirs is lost, and a client that never reads holds nothing.
        if (readsOnly(socket, waiting)) {
          socket.destroy();
          unanswered();
          return;
        }
        // A change before it may have taken effect: refused in order, so the answers before it still go out, and none
        // after it runs. Node closes the connection after this answer; RESPONSE_TIMEOUT_MS, if the client never reads.
        connection.closing = true;
      }
      void reply.header('connection', 'close');
      go(httpError(400, `more than ${this.maxWaiting} pipelined requests were waiting on this connection: it is closed`));
      return;
    }
    const onTurn = () => {
      waiting.delete(onClose);
      go();
    };
    const onClose: OnClose = () => {
      reply.raw.off('socket', onTurn);
      unanswered();
    };
    waiting.set(onClose, reply.request.method);
    reply.raw.once('socket', onTurn);
  }

  private connectionOf(socket: Socket): Connection {
    let connection = this.connections.get(socket);
    if (connection === undefined) {
      const created: Connection = { waiting: new Map(), closing: false };
      socket.once('close', () => {
        for (const onClose of created.waiting.keys()) onClose();
        created.waiting.clear();
      });
      this.connections.set(socket, created);
      connection = created;
    }
    return connection;
  }
}

function readsOnly(socket: Socket, waiting: Connection['waiting']): boolean {
  const inFlight = answerInFlight(socket)?.req.method;
  return [...waiting.values(), ...(inFlight === undefined ? [] : [inFlight])].every((method) => SAFE_METHODS.has(method));
}

function tooDeep(log: FastifyBaseLogger, max: number): void {
  log.warn({ maxPipelinedRequests: max }, 'closing a connection with more pipelined requests waiting than MAX_PIPELINED_REQUESTS');
}
