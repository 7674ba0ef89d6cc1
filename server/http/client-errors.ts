import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../errors/http-error.js';
import { toRestError } from '../errors/rest-error.js';
import { answerInFlight } from './answer-in-flight.js';

const ANSWERED_BEFORE_ITS_BODY = Symbol('answered before its body');
const REFUSAL_PENDING = Symbol('refusal pending');
type MarkedSocket = Socket & { [ANSWERED_BEFORE_ITS_BODY]?: boolean; [REFUSAL_PENDING]?: boolean };

/**
 * A request answered before its whole body came (a refusal): a parse error in the rest of that body gets no answer of
 * its own, which the client would take for its next request's. Node reads such a body to its end, then goes on.
 */
export function noteAnsweredBeforeBody(request: IncomingMessage): void {
  if (request.complete) return;
  const socket = request.socket as MarkedSocket;
  socket[ANSWERED_BEFORE_ITS_BODY] = true;
  request.once('end', () => {
    socket[ANSWERED_BEFORE_ITS_BODY] = false;
  });
}

/**
 * Parser errors before any route get the `Error` body too, written to the socket as there is no request yet. Requests
 * read before the error are answered first, in order (RFC 9112 section 9.3.2): they may have taken effect.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  const marked = socket as MarkedSocket;
  if (error.code === 'ECONNRESET' || socket.destroyed || marked[REFUSAL_PENDING]) return;
  // Only the code and reason: the error also carries the raw request, tokens included.
  this.log.debug({ code: error.code, reason: error.message }, 'client error');
  marked[REFUSAL_PENDING] = true;
  afterAnswersInFlight(marked, () => {
    if (socket.writable && marked[ANSWERED_BEFORE_ITS_BODY] !== true) writeRefusal(socket, describe(error));
    socket.destroy(error);
  });
}

/**
 * Node gives CONNECT (a request to tunnel, for proxies) to a listener of its own and, without one, drops the
 * connection unanswered. No resource here tunnels.
 */
export function refuseConnect(app: FastifyInstance): void {
  app.server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    afterAnswersInFlight(socket, () => {
      if (socket.writable) writeRefusal(socket, httpError(501, 'CONNECT is not implemented: this service is no proxy'));
      socket.destroySoon();
    });
  });
}

/** An `Error` answer written to the socket itself, where there is no request to answer through. */
function writeRefusal(socket: Socket, error: Error): void {
  const { statusCode, json } = refusalAnswer(error);
  socket.write(
    `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
}

/** Once no answer to a whole request is being written: an answer whose request is still arriving is the one the error is about. */
function afterAnswersInFlight(socket: Socket, then: () => void): void {
  const answer = answerInFlight(socket);
  if (!answer?.req.complete || socket.destroyed) {
    then();
    return;
  }
  answer.once('close', () => {
    afterAnswersInFlight(socket, then);
  });
}

/** Node answers an `Expect` other than 100-continue itself, with a bare 417: this gives it the `Error` body. */
export function refuseUnknownExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const { statusCode, json } = refusalAnswer(
      httpError(417, 'the Expect header asks for what this service does not do: only 100-continue is understood'),
    );
    response.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    response.end(json);
  });
}

/** The `Error` answer of a refusal made before there is a request, so without its id. */
function refusalAnswer(error: Error): { statusCode: number; json: string } {
  const { statusCode, body } = toRestError(error, { id: '-', method: '-', url: '-' });
  return { statusCode, json: JSON.stringify(body) };
}

function describe(error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }): Error {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpError(408, 'the request took too long to arrive');
    case 'HPE_HEADER_OVERFLOW':
      return httpError(
        431,
        'the request line and headers are too large: a long query (such as a tRPC batch of many calls) goes in a POST ' +
          'body, or in several requests',
      );
    case 'HPE_INVALID_METHOD':
      if (isUnknownMethodLine(error)) return httpError(501, 'the request method is not one this service implements');
      break;
    case 'HPE_INVALID_VERSION': {
      const version = requestLineVersion(error);
      if (version !== undefined) return httpError(505, `HTTP/${version} is not supported: send HTTP/1.1`);
      break;
    }
  }
  return httpError(400, 'the request is not valid HTTP');
}

/** A method is a token (RFC 9110 section 5.6.2). */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]";
const TOKEN_CHARACTER = new RegExp(`^${TOKEN}$`);
/** A request line, its version captured. */
const REQUEST_LINE = new RegExp(`^${TOKEN}+ \\S+ HTTP/(\\d\\.\\d)$`);
const CUT_SHORT_REQUEST_LINE = new RegExp(`^${TOKEN}+ \\S*(?: \\S*)?$`);

/**
 * The version of a well-formed request line naming one the parser does not read (`HTTP/3.0`, `HTTP/1.2`): 505 (RFC
 * 9110 section 15.6.6), where a malformed one (`HTTP/1.10`) is no HTTP. The parser stops just after the version.
 */
function requestLineVersion({ rawPacket, bytesParsed }: { rawPacket?: Buffer; bytesParsed?: number }): string | undefined {
  if (rawPacket === undefined || bytesParsed === undefined) return undefined;
  const { line } = requestLineAt(rawPacket, rawPacket.lastIndexOf('\n', Math.max(0, bytesParsed - 1)) + 1);
  return REQUEST_LINE.exec(line)?.[1];
}

/**
 * A request line whose method is one no part here knows (`FOO /plants HTTP/1.1`): 501 (RFC 9110 section 9.1). Anything
 * else, such as a TLS handshake sent to the plain port, is no HTTP at all. The line may be cut short by the packet.
 */
function isUnknownMethodLine({ rawPacket, bytesParsed }: { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  if (rawPacket === undefined || bytesParsed === undefined) return false;
  // The parser stops within the method: it starts where the token characters before that point do.
  let start = bytesParsed;
  while (start > 0 && TOKEN_CHARACTER.test(String.fromCharCode(rawPacket[start - 1] ?? 0))) start -= 1;
  const { line, whole } = requestLineAt(rawPacket, start);
  return whole ? REQUEST_LINE.test(line) : CUT_SHORT_REQUEST_LINE.test(line);
}

/** The request line from `start` to its CRLF, or to the packet's end when the packet holds only part of it. */
function requestLineAt(rawPacket: Buffer, start: number): { line: string; whole: boolean } {
  const text = rawPacket.toString('latin1', start, start + 16_384);
  const end = text.indexOf('\r\n');
  return end === -1 ? { line: text, whole: false } : { line: text.slice(0, end), whole: true };
}
