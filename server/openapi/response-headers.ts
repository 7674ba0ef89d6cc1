import type { OpenApiOperation } from './operations.js';

/** The headers the service's answers carry, as the document's reusable components. */
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
  Link: {
    description: 'The next page, while more plants follow: `</plants?limit=…&after=…>; rel="next"`',
    schema: { type: 'string' as const },
  },
};

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Which answer carries which header, the same for every operation. */
export function addResponseHeaders(operation: OpenApiOperation): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!response) continue;
    const headers: Record<string, unknown> = { ...response.headers, 'X-Request-Id': ref('X-Request-Id') };
    if (status === '401' || status === '403') headers['WWW-Authenticate'] = ref('WWW-Authenticate');
    if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
    response.headers = headers;
  }
}
