import type { OpenApiOperation } from './operations.js';

/** The headers the service's answers carry. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'The id of this request, also in the log lines about it (and in the message of a 500)',
    schema: { type: 'string' as const, format: 'uuid' },
  },
  'WWW-Authenticate': {
    description:
      'The bearer challenge (RFC 6750): `Bearer` when no token was sent; `Bearer error="invalid_token", error_description="…"` ' +
      'when it was refused, saying why; `Bearer error="insufficient_scope", scope="…"` when it lacks the scope named',
    schema: { type: 'string' as const },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer' as const, minimum: 1 },
  },
  ETag: {
    description:
      "The plant's strong entity tag: it changes when, and only when, the plant changes (a plant deleted and created " +
      'again may answer the tags of the earlier one). Send it back in `If-Match` ' +
      'to change or delete the plant only while it is as read, or in `If-None-Match` to read it only when it has changed',
    schema: { type: 'string' as const },
  },
  'Accept-Patch': {
    description: 'The media types the PATCH takes (RFC 5789), on a 415 that refused another',
    schema: { type: 'string' as const },
  },
  'Accept-Encoding': {
    description: '`identity`, on a 415 that refused an encoded body (RFC 9110 section 12.5.3): send it without Content-Encoding',
    schema: { type: 'string' as const },
  },
  Link: {
    description: 'The next page while more plants follow, keeping any `tag` asked: `</plants?limit=…&after=…>; rel="next"`',
    schema: { type: 'string' as const },
  },
};

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/**
 * Written out, saying whether every such answer carries it: openapi-typescript types a header given by `$ref` as always
 * there, which would make a client's `Link` a string on the last page too.
 */
export const header = (name: ResponseHeaderName, required: boolean) => ({ ...RESPONSE_HEADERS[name], required });

/** Node's HTTP server answers these itself, before the request reaches Fastify and gets an id. */
const ANSWERED_BEFORE_AN_ID = new Set(['408', '417', '431']);

/** Which answer carries which header, the same for every operation. */
export function addResponseHeaders(operation: OpenApiOperation): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!response) continue;
    const headers: Record<string, unknown> = { ...response.headers };
    if (!ANSWERED_BEFORE_AN_ID.has(status)) headers['X-Request-Id'] = header('X-Request-Id', true);
    if (status === '401' || status === '403') headers['WWW-Authenticate'] = header('WWW-Authenticate', true);
    if (status === '429' || status === '503') headers['Retry-After'] = header('Retry-After', true);
    // Only to an encoded body: a 415 for the media type has none.
    if (status === '415') headers['Accept-Encoding'] = header('Accept-Encoding', false);
    response.headers = headers;
  }
}

/** The answers of an operation that declares entity tags: its 2xx carry `ETag`. */
export function addEntityTagHeader(operation: OpenApiOperation): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response && status.startsWith('2') && response.content !== undefined)
      response.headers = { ...response.headers, ETag: header('ETag', true) };
  }
}

/** A read that answers 304 when `If-None-Match` names the plant's entity tag. */
export function addNotModified(operation: OpenApiOperation, description: string): void {
  operation.responses['304'] = {
    description,
    headers: { 'X-Request-Id': header('X-Request-Id', true), ETag: header('ETag', true) },
  };
}
