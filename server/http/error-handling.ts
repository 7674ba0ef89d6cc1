import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { AuthError } from '../../routers/auth.js';
import { StoreUnavailableError } from '../../routers/plant-store.js';
import { isRefusalStatus, NoRouteError, toRestError, type MethodsAt } from '../errors/rest-error.js';
import { toTrpcErrorEnvelope } from '../errors/trpc-error.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { ShuttingDownError } from './graceful-close.js';

export interface TrpcEndpoint {
  prefix: string;
  router: AppRouter;
}

/**
 * Every failure answers in the shape its URL's clients read: tRPC's envelope under /trpc, `{ error, message }` elsewhere.
 * Unexpected ones are logged and answered generically, never with a stack.
 */
export function registerErrorHandling(app: FastifyInstance, trpc: TrpcEndpoint, methodsAt: MethodsAt) {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    answerFailure(trpc, error, request, reply, methodsAt);
  });
  // A /trpc path takes GET and POST: another method may reach the REST catch-all, whose refusal is answered as tRPC's.
  // The http plugin's onRequest hook answers a request no route takes the same way first, before its body is judged;
  // this is the fallback Fastify would otherwise fill with its own 404.
  app.setNotFoundHandler(async (request, reply) => {
    answerFailure(trpc, new NoRouteError(), request, reply, methodsAt);
  });
}

/** A URL the router cannot read (`/plants/%ff`) fails before any hook, so it is shaped here too. */
export function frameworkErrorHandler(trpc: TrpcEndpoint) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.header('x-request-id', request.id);
    answerFailure(trpc, error, request, reply);
    reply.server.telemetry.metrics?.countRefused(request, reply);
  };
}

function answerFailure(trpc: TrpcEndpoint, error: unknown, request: FastifyRequest, reply: FastifyReply, methodsAt?: MethodsAt): void {
  const { statusCode, headers, body } = request.url.startsWith(`${trpc.prefix}/`)
    ? toTrpcErrorEnvelope(trpc.router, error, request, { methodsAt, path: refusedCallPath(request) })
    : toRestError(error, request, methodsAt);
  logFailure(request, error, statusCode);
  void reply.code(statusCode).headers(headers).type('application/json; charset=utf-8').send(body);
}

/**
 * A refusal before tRPC runs one /trpc call (its token, its body's type or size) is that call's, naming its
 * procedure as tRPC does. A batch's is one envelope: every tRPC link reads it as each call's, and the streaming one reads
 * nothing else from an answer not 200.
 */
function refusedCallPath(request: FastifyRequest): string | undefined {
  // A URL Fastify could not read (`/trpc/%ff`) reaches here with neither a query nor parameters.
  const { query, params } = request as { query?: { batch?: unknown } | null; params?: { path?: string } | null };
  return query?.batch === '1' ? undefined : params?.path;
}

/**
 * A refusal of what the client sent (4xx, 501, 505) is no failure: nothing more is logged. A 5xx's cause goes into the
 * request's log line. A 503 is expected while the database or the identity provider's keys are away (each logs why,
 * once per outage) or the service shuts down (logged once as it starts); any other gets one warning line, no stack.
 * Any other 5xx is logged at error level.
 */
function logFailure(request: FastifyRequest, error: unknown, statusCode: number): void {
  if (isRefusalStatus(statusCode)) return;
  noteFailureCause(request, error);
  if (statusCode !== 503) request.log.error({ err: error }, 'request failed');
  else if (!(error instanceof Error && isExpectedOutage(error.cause)))
    request.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'request refused: service unavailable');
}

function isExpectedOutage(cause: unknown): boolean {
  return cause instanceof StoreUnavailableError || cause instanceof AuthError || cause instanceof ShuttingDownError;
}
