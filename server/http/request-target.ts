import type { IncomingMessage } from 'node:http';

const SCHEME_AND_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The request target in origin form. A server must accept the absolute form too (`GET http://host/plants`, RFC 9112
 * section 3.2.2); Fastify's router already reads past it, so every part after it sees the path it routed.
 */
export function originForm(request: IncomingMessage): string {
  const url = request.url ?? '/';
  if (url.startsWith('/')) return url;
  const authority = SCHEME_AND_AUTHORITY.exec(url);
  if (authority === null) return url;
  const rest = url.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
