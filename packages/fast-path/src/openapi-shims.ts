import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredMethod } from './answered-method.js';

// Not Fastify's own objects, as trpc-to-openapi's plugin passes: it patches every reply, and the handler then builds
// a fetch `Request` per call just for a `signal`, which aborts on every normal close.

/**
 * Passes the handler's `instanceof Request` check, so it builds no fetch `Request`, while every field it reads is
 * its own. The signal only reaches `createContext`, which ignores it: one that never aborts will do.
 */
export class OpenApiRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderReader;
  readonly body: unknown;
  readonly query: unknown;

  constructor(readonly fastify: FastifyRequest) {
    this.method = answeredMethod(fastify.method);
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

class HeaderReader {
  constructor(private readonly headers: FastifyRequest['headers']) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** Writes through Fastify's reply, so its hooks, CORS and request log see the answer. */
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
