import type { FastifyRequest } from 'fastify';

/**
 * The GET a HEAD asks about, as a fetch Request of its own: the stock adapters answer any HEAD 204 without a token,
 * so their fetch entries are given this GET instead. The HEAD's request stays at hand for the call's context.
 */
export class GetOfHead extends Request {
  /** As Fastify parsed it, which trpc-to-openapi reads when present. */
  readonly query: unknown;

  constructor(
    readonly head: FastifyRequest,
    url: string = head.url,
  ) {
    super(new URL(url, 'http://localhost'), { method: 'GET', headers: fetchHeaders(head.headers) });
    this.query = head.query;
  }
}

function fetchHeaders(headers: FastifyRequest['headers']): Headers {
  const fetched = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') fetched.set(name, value);
    else if (Array.isArray(value)) for (const item of value) fetched.append(name, item);
  }
  return fetched;
}
