import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { withQuerySecretsRedacted } from './secret-query.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The trace of the request's span, when the service traces (server/observability/tracing.ts). */
    traceId?: string;
  }
}

const ABOVE_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

/**
 * One log line per request, with its id, method, path, status, time and caller (Fastify's
 * default is two lines, neither with all of these), its trace id when the service traces, and the
 * cause of a 5xx (failure-cause.ts). Headers are never logged, so neither are tokens; nor are the
 * values of query parameters named like secrets (`?access_token=`).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Folded into the completion line.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Skip building the line when the level would drop it (the hot path in production at warn).
    if (!error && ABOVE_INFO.has(request.log.level)) return;
    const line = {
      method: request.method,
      path: withQuerySecretsRedacted(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      // The caller the procedure authenticated, as its call's context holds it: no token is read again.
      principal: request.apiContext?.principal?.name,
      ...(request.traceId !== undefined && { traceId: request.traceId }),
      ...(request.failureCause !== undefined && { cause: request.failureCause }),
    };
    if (error) request.log.error({ ...line, err: error }, 'request failed');
    else request.log.info(line, 'request completed');
  }
}
