import type { FastifyReply } from 'fastify';
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
 */

/**
 * Whether requests sent before this one on its connection are still being answered: its
 * response has no socket yet. The one check a request sent alone (any keep-alive client) pays.
 */
export function isBehindEarlierRequests(reply: FastifyReply): boolean {
  return reply.raw.socket === null;
}

/**
 * Calls `go` once the responses before this one have finished, or with an error when the
 * connection closes first: then the request never takes effect (there is no one to answer).
 */
export function waitForEarlierRequests(reply: FastifyReply, go: (error?: Error) => void): void {
  const response = reply.raw;
  const { socket } = reply.request.raw;
  if (socket.destroyed) {
    go(connectionClosed());
    return;
  }
  const onTurn = () => {
    socket.off('close', onClose);
    go();
  };
  const onClose = () => {
    response.off('socket', onTurn);
    go(connectionClosed());
  };
  response.once('socket', onTurn);
  socket.once('close', onClose);
}

const connectionClosed = () => httpError(400, 'the connection closed before this pipelined request could start');
