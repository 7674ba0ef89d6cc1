import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Light stand-ins for the request and response that trpc-to-openapi's node-http handler
 * (`createOpenApiNodeHttpHandler`) reads and writes, built from Fastify's request and reply.
 *
 * Why not Fastify's own objects, as trpc-to-openapi's Fastify plugin passes: the plugin patches
 * every reply, and the handler then builds a whole fetch `Request` per call only to take its
 * `signal`, which aborts on every normal close (the patched reply has no `writableEnded`).
 */

/**
 * The handler builds that fetch `Request` unless `req instanceof Request`. This shim passes the
 * check (its prototype chain runs through `Request.prototype`) while every field the handler
 * reads is its own, so no `Request` internals are touched. The signal only reaches
 * `createContext`, which ignores it, so one that never aborts is enough.
 */
export class OpenApiRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderReader;
  /** Already parsed by Fastify; the handler uses it as it is when the field exists. */
  readonly body: unknown;
  /** Already parsed by Fastify; the handler reads it for GET and DELETE operations. */
  readonly query: unknown;

  constructor(readonly fastify: FastifyRequest) {
    this.method = fastify.method;
    this.url = fastify.url;
    this.headers = new HeaderReader(fastify.headers);
    this.body = fastify.body;
    this.query = fastify.query;
  }

  get signal(): AbortSignal {
    return NEVER_ABORTED;
  }
}
Object.setPrototypeOf(OpenApiRequest.prototype, Request.prototype);

const NEVER_ABORTED = new AbortController().signal;

/** `headers.get(name)` over Node's lower-cased header record, as a fetch `Headers` answers it. */
class HeaderReader {
  constructor(private readonly headers: FastifyRequest['headers']) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * The three things the handler does to a response (set `statusCode`, `setHeader`, `end`),
 * passed straight to Fastify's reply, so Fastify's hooks, CORS and request log see the answer.
 */
export class OpenApiResponse {
  statusCode = 200;

  constructor(private readonly reply: FastifyReply) {}

  setHeader(name: string, value: string | number | readonly string[]): void {
    this.reply.header(name, value);
  }

  end(body?: string): void {
    if (!this.reply.sent) void this.reply.code(this.statusCode).send(body);
  }
}
