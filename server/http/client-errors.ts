import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from '../../schemas/error.js';

/**
 * Answers errors Node's HTTP parser raises before any route runs (a request that took too long,
 * headers too large, bytes that are not HTTP) with the API's `Error` body, like every other
 * failure; Fastify's default answers `{"error": "<status text>", ...}`.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = describe(error.code);
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ error: status, message } satisfies ErrorBody);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function describe(code: string | undefined): [number, string] {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request took too long to arrive'];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'the request headers are too large'];
    default:
      return [400, 'the request is not valid HTTP'];
  }
}
