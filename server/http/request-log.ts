import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { withQuerySecretsRedacted } from './secret-query.js';

declare module 'fastify' {
  interface FastifyRequest {
    traceId?: string;
  }
}

const ABOVE_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

/** One line per request (Fastify's default is two, neither complete); headers and secret-named query values are never logged. */
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
