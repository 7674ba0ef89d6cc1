import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { StoreUnavailableError } from '../../routers/plant-store.js';
import { notFound, toRestError, type RestError } from '../errors/rest-error.js';

/**
 * The app's one error handler and not-found handler: every failure of the REST API answers
 * `{ error, message }` with the HTTP status as `error`. Unexpected errors are logged with their
 * details and answered with a generic message and the request id; no stack trace ever leaves.
 */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const restError = toRestError(error, request);
    // A 503 is expected while the database is away (server/db/mongo-database.ts logs why, once per
    // outage) or the service shuts down (one warning line, no stack).
    if (restError.statusCode === 503) {
      if (!(error.cause instanceof StoreUnavailableError)) request.log.warn({ reason: error.message }, 'request refused: service unavailable');
    } else if (restError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendRestError(reply, restError);
  });
  app.setNotFoundHandler(async (request, reply) => sendRestError(reply, notFound(request)));
}

function sendRestError(reply: FastifyReply, { statusCode, body, headers }: RestError) {
  return reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(body);
}
