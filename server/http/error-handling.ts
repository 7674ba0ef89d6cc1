import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from '../../schemas/error.js';
import { notFoundReply, toErrorReply, type ErrorReply } from './error-reply.js';

/**
 * The app's one error handler and not-found handler: every failure of the REST API answers
 * `{ error, message }` with the HTTP status as `error`. Unexpected errors are logged with their
 * details and answered with a generic message and the request id; no stack trace ever leaves.
 */
export function registerErrorHandling(app: FastifyInstance, { bodyLimit }: { bodyLimit: number }) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const errorReply = toErrorReply(error, request, bodyLimit);
    // A 503 is expected while the database is away or the service shuts down: one warning line, no stack.
    if (errorReply.statusCode === 503) request.log.warn({ reason: error.message }, 'request refused: service unavailable');
    else if (errorReply.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, errorReply);
  });
  app.setNotFoundHandler(async (request: FastifyRequest, reply) => sendError(reply, notFoundReply(request)));
}

export function sendError(reply: FastifyReply, { statusCode, message, headers }: ErrorReply) {
  const body: ErrorBody = { error: statusCode, message };
  return reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(body);
}
