import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Light stand-ins for the request and response that trpc-to-openapi's node-http handler
 * (`createOpenApiNodeHttpHandler`) reads and writes, built from Fastify's request and reply.
 *
 * Why not pass Fastify's own objects, as trpc-to-openapi's Fastify plugin does: that plugin
 * patches every reply (`Object.defineProperty`, a dozen `bind`s), and the handler then builds a
 * whole fetch `Request` per call (`incomingMessageToRequest`: a `Headers`, an `AbortController`,
 * a body stream from a re-`JSON.stringify`d body) only to take its `signal`. Worse, because the
 * patched reply has no `writableEnded`, that signal aborts on every normal close, creating a
 * `DOMException` each time. Profiled, that was about a quarter of the service's CPU per request.
 */

/**
 * The handler takes a request's `signal` as is when the request is a fetch `Request`
 * (`req instanceof Request`) and otherwise builds one as above. This shim is one, as far as
 * `instanceof` goes: its prototype chain runs through `Request.prototype`, while every field
 * the handler reads (method, url, headers.get, body, query, signal) is the shim's own, so no
 * `Request` internals are ever touched. The handler only hands the signal to `createContext`
 * in `info`, which ours does not read, and calls the procedure with no signal at all, so one
 * signal that never aborts is all it needs.
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
