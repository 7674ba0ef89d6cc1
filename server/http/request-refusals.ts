import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { httpError, TARGET_FORM_MESSAGE } from '../errors/http-error.js';
import { HOST_AND_PORT } from './request-target.js';

/**
 * Missing, repeated or malformed Host (RFC 9112 section 3.2): Node would refuse the first unlogged and keep the first
 * of several; so it would of two Content-Types or Authorizations, which a proxy in front may have read otherwise.
 * `*` (RFC 9112 section 3.2.4) names no resource. A transfer coding other than chunked would be read as if absent
 * (RFC 9112 section 6.1 answers it 501). Node's parser reads a request line of HTTP/2.0 as one of HTTP/1.x (505).
 */
export function requestRefusal(request: FastifyRequest): Error | undefined {
  const { httpVersion, httpVersionMajor } = request.raw;
  if (httpVersionMajor !== 1) {
    return httpError(505, `HTTP/${httpVersion} is not supported: send HTTP/1.1`, { connection: 'close' });
  }
  const { host: hostValue, 'transfer-encoding': transferEncoding } = request.headers;
  if (hostValue === undefined && httpVersion !== '1.0')
    return httpError(400, 'the request has no Host header, which HTTP/1.1 requires: send Host: <the server name>');
  const { host, contentType, authorization } = singleHeaders(request.raw.rawHeaders);
  if (host > 1) return httpError(400, 'the request has more than one Host header: send exactly one');
  if (hostValue !== undefined && !HOST_AND_PORT.test(hostValue))
    return httpError(400, 'the Host header is not a host name or address with an optional port: send Host: <the server name>[:<port>]');
  if (transferEncoding !== undefined && transferEncoding.trim().toLowerCase() !== 'chunked') {
    const coding = JSON.stringify(transferEncoding);
    return httpError(501, `the transfer coding ${coding} is not implemented: send Transfer-Encoding: chunked alone, or Content-Length`, {
      connection: 'close',
    });
  }
  if (contentType > 1) return httpError(400, 'the request has more than one Content-Type header: send exactly one');
  if (authorization > 1) return httpError(400, 'the request has more than one Authorization header: send exactly one');
  if (request.url === '*') return httpError(400, 'the request target * names no resource: send a path such as /plants');
  if (!request.url.startsWith('/')) return httpError(400, TARGET_FORM_MESSAGE);
  return undefined;
}

/** As the path's are refused: the query parser would keep an undecodable value as sent, and match nothing with it. */
export function queryRefusal(request: FastifyRequest): Error | undefined {
  if (!hasUndecodableQuery(request.url)) return undefined;
  return httpError(400, 'the request query is not valid: each % must start an escape (%XX) of UTF-8 bytes');
}

/** No route decodes a content-coded body (415, RFC 9110 section 15.5.16): refused as it is about to be read. */
export function encodedBodyRefusal(headers: IncomingHttpHeaders): Error | undefined {
  const encoding = headers['content-encoding'];
  if (encoding === undefined || isIdentity(encoding) || !hasBody(headers)) return undefined;
  return httpError(415, 'the request body must not be encoded: send it without Content-Encoding (gzip, br and the like are not accepted)', {
    'accept-encoding': 'identity',
  });
}

function hasUndecodableQuery(url: string): boolean {
  const start = url.indexOf('?');
  if (start === -1 || !url.includes('%', start)) return false;
  try {
    decodeURIComponent(url.slice(start + 1));
    return false;
  } catch {
    return true;
  }
}

/** How often the headers that must come once came. */
function singleHeaders(rawHeaders: string[]): { host: number; contentType: number; authorization: number } {
  const counts = { host: 0, contentType: 0, authorization: 0 };
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]?.toLowerCase();
    if (name === 'host') counts.host += 1;
    else if (name === 'content-type') counts.contentType += 1;
    else if (name === 'authorization') counts.authorization += 1;
  }
  return counts;
}

function isIdentity(encoding: string): boolean {
  return encoding.split(',').every((coding) => {
    const name = coding.trim().toLowerCase();
    return name === '' || name === 'identity';
  });
}

/** Whether the request's headers announce a body (RFC 9112 section 6.3). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}
