import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the request failed on the server's side (a 5xx), for its log line (request-log.ts); never sent to the client. */
    failureCause?: string;
  }
}

/**
 * Keeps, for the request's log line, why it failed on the server's side: the innermost cause of
 * `error` as `Name: message` (for a 503 from the database, the driver's error, which names the
 * server). Answers carry only a generic message and the request id.
 */
export function noteFailureCause(request: FastifyRequest, error: unknown): void {
  let cause = error;
  while (cause instanceof Error && cause.cause !== undefined) cause = cause.cause;
  request.failureCause = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}
