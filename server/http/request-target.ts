import type { IncomingMessage } from 'node:http';

/** An http(s) URL's scheme and authority: a host, no user information (RFC 9110 sections 4.2.1 and 4.2.4). */
const HTTP_AUTHORITY = /^https?:\/\/[^/?#@]+(?=[/?]|$)/i;

/**
 * The request target in origin form. A server must accept the absolute form too (`GET http://host/plants`, RFC 9112
 * section 3.2.2), which Fastify's router reads past but nothing after it does; any other form is refused as the request
 * starts. A fragment is the client's own and not part of a target: it is dropped, where Fastify would read it as the
 * query.
 */
export function originForm(request: IncomingMessage): string {
  const url = withoutFragment(request.url ?? '/');
  if (url.startsWith('/')) return url;
  const authority = HTTP_AUTHORITY.exec(url);
  if (authority === null) return url;
  const rest = url.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
