import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { AuthError } from '../../routers/auth.js';
import { StoreUnavailableError } from '../../routers/plant-store.js';
import { notFound, toRestError, type MethodsAt, type RestError } from '../errors/rest-error.js';
import { toTrpcErrorEnvelope } from '../errors/trpc-error.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { ShuttingDownError } from './graceful-close.js';

/** Every REST failure answers `{ error, message }`; unexpected ones are logged and answered generically, never with a stack. */
export function registerErrorHandling(app: FastifyInstance, methodsAt: MethodsAt) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const restError = toRestError(error, request, methodsAt);
    if (restError.statusCode >= 500) noteFailureCause(request, error);
    // A 503 is expected while the database or the identity provider's keys are away (each logs why, once per outage) or
    // the service shuts down (logged once as it starts); any other gets one warning line, no stack.
    if (restError.statusCode === 503) {
      if (!(error.cause instanceof StoreUnavailableError || error.cause instanceof AuthError || error.cause instanceof ShuttingDownError))
        request.log.warn({ reason: error.message }, 'request refused: service unavailable');
    } else if (restError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendRestError(reply, restError);
  });
  app.setNotFoundHandler(async (request, reply) => sendRestError(reply, notFound(request, methodsAt(request.url))));
}

/** A URL the router cannot read (`/plants/%ff`) fails before any hook, so it is shaped here: REST body or tRPC envelope. */
export function frameworkErrorHandler(trpc: { prefix: string; router: AppRouter }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.header('x-request-id', request.id);
    if (!request.url.startsWith(`${trpc.prefix}/`)) {
      void sendRestError(reply, toRestError(error, request));
      return;
    }
    const { statusCode, headers, body } = toTrpcErrorEnvelope(trpc.router, error, request);
    void reply.code(statusCode).headers(headers).send(body);
  };
}

function sendRestError(reply: FastifyReply, { statusCode, body, headers }: RestError) {
  return reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(body);
}
