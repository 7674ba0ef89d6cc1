import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, with its id, method, path, status and time (Fastify's default is
 * two lines, neither with all of these). Headers are never logged, so neither are tokens.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Folded into the completion line.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, path: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) request.log.error({ ...line, err: error }, 'request failed');
    else request.log.info(line, 'request completed');
  }
}
