import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { httpError } from '../errors/http-error.js';

/**
 * The refusal of a request that no route of this service can serve, whatever its path, or
 * undefined (the common case: two comparisons).
 *
 * - No `Host` header on an HTTP/1.1 request, or more than one (RFC 9112 section 3.2): 400. Node
 *   would refuse the first itself, with a bare answer, no request id and no log line (turned off),
 *   and keep the first of several.
 * - The asterisk-form target (`OPTIONS * HTTP/1.1`, RFC 9112 section 3.2.4) names the server,
 *   not a resource: 400. Routed, it would reach trpc-to-openapi, which cannot parse it as a URL.
 * - A body in a content coding (`Content-Encoding: gzip`, `br`...): no route decodes one, and
 *   reading the coded bytes as JSON would refuse it with a misleading message, or store what the
 *   client did not mean. 415 with `Accept-Encoding: identity`, as RFC 9110 section 15.5.16 asks.
 */
export function requestRefusal(request: FastifyRequest, reply: FastifyReply): Error | undefined {
  if (request.headers.host === undefined && request.raw.httpVersion !== '1.0')
    return httpError(400, 'the request has no Host header, which HTTP/1.1 requires: send Host: <the server name>');
  if (hostHeaders(request.raw.rawHeaders) > 1) return httpError(400, 'the request has more than one Host header: send exactly one');
  if (request.url === '*') return httpError(400, 'the request target * names no resource: send a path such as /plants');
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined || isIdentity(encoding) || !hasBody(request.headers)) return undefined;
  reply.header('accept-encoding', 'identity');
  return httpError(415, 'the request body must not be encoded: send it without Content-Encoding (gzip, br and the like are not accepted)');
}

/** How many Host fields the request carries (`rawHeaders` alternates names and values). */
function hostHeaders(rawHeaders: string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index]?.toLowerCase() === 'host') count += 1;
  return count;
}

/** `identity`, or nothing: the codings listed, in any case, none but identity. */
function isIdentity(encoding: string): boolean {
  return encoding.split(',').every((coding) => {
    const name = coding.trim().toLowerCase();
    return name === '' || name === 'identity';
  });
}

/** Whether the request has a body, as Node frames it: a Content-Length above 0, or chunks. */
function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}
