import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    failureCause?: string;
  }
}

/** The innermost cause, for the log line only: answers carry a generic message and the request id. */
export function noteFailureCause(request: FastifyRequest, error: unknown): void {
  let cause = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  request.failureCause = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}
