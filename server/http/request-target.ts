import type { IncomingMessage } from 'node:http';

/** RFC 3986's host (an IP literal, a zone id allowed as Node's client sends it, or a name or address) and port. */
const HOST = String.raw`(?:\[[0-9a-z:._~!$&'()*+,;=%-]+\]|(?:%[0-9a-f]{2}|[0-9a-z._~!$&'()*+,;=-])*)(?::[0-9]*)?`;
/** A Host header's value: a host, empty when the target has none, and a port (RFC 9112 section 3.2). */
export const HOST_AND_PORT = new RegExp(`^${HOST}$`, 'i');
/** An http(s) URL's scheme and authority: a host, no user information (RFC 9110 sections 4.2.1 and 4.2.4). */
const HTTP_AUTHORITY = new RegExp(`^https?://(?=[^/?#])${HOST}(?=[/?]|$)`, 'i');

/**
 * The request target in origin form. A server must accept the absolute form too (`GET http://host/plants`, RFC 9112
 * section 3.2.2), which Fastify's router reads past but nothing after it does; any other form is refused as the request
 * starts. A fragment is the client's own and not part of a target: it is dropped, where Fastify would read it as the
 * query.
 */
export function originForm(request: IncomingMessage): string {
  const url = withoutFragment(request.url ?? '/');
  if (url.startsWith('/')) return normalPath(url);
  const authority = HTTP_AUTHORITY.exec(url);
  if (authority === null) return url;
  const rest = url.slice(authority[0].length);
  return normalPath(rest.startsWith('/') ? rest : `/${rest}`);
}

/** Escaped letters, digits, `-`, `_` and `~`: `%36` is `6` (RFC 3986 section 6.2.2.2). */
const ESCAPED_UNRESERVED = /%(?:3[0-9]|[46][1-9a-f]|[57][0-9a]|2d|5f|7e)/gi;
const BROKEN_ESCAPE = /%(?![0-9a-f]{2})/i;

/**
 * The path with its unreserved characters unescaped, as trpc-to-openapi and the REST checks, which read the URL as sent,
 * must see it. A dot is left escaped, and a path with a `%` that starts no escape is left as it is, for Fastify to refuse:
 * unescaping around it would make a new escape of it (`%3%36` would read as `%36`).
 */
function normalPath(url: string): string {
  if (!url.includes('%')) return url;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.includes('%') || BROKEN_ESCAPE.test(path)) return url;
  const unescaped = path.replace(ESCAPED_UNRESERVED, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16)));
  return query === -1 ? unescaped : unescaped + url.slice(query);
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
