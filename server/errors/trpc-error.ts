import { trpcErrorBody } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { HTTP_STATUS_TRPC_ERROR_CODE } from 'trpc-to-openapi';
import type { FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { isRefusalStatus, isUnexpected, toRestError, type MethodsAt, type RequestInfo } from './rest-error.js';

/**
 * Failures before tRPC runs become TRPCErrors with REST's status and words, so the router's own formatter shapes them;
 * the failure of one call names its procedure, as tRPC's own does.
 */
export function toTrpcErrorEnvelope(
  router: AppRouter,
  error: unknown,
  request: RequestInfo,
  { path, methodsAt }: { path?: string | undefined; methodsAt?: MethodsAt } = {},
) {
  const { statusCode, body, headers } = toRestError(error, request, methodsAt);
  // A refusal no tRPC code stands for (505) keeps its words: only an unexpected failure is told in general terms.
  const code = HTTP_STATUS_TRPC_ERROR_CODE[statusCode] ?? (isRefusalStatus(statusCode) ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
  const trpcError = new TRPCError({ code, message: body.message, cause: error });
  // What the router's formatter reads of a context, before tRPC made one: the request id a 500's message names.
  const ctx: Pick<Context, 'requestId'> = { requestId: request.id };
  return { statusCode, headers, body: trpcErrorBody(router, trpcError, { path, ctx, httpStatus: statusCode }) };
}

/** The cause of any 5xx (a 503 from the database too) goes into the request's log line. */
export function logUnexpectedTrpcError({ error, req }: { error: TRPCError; req: FastifyRequest }): void {
  if (getHTTPStatusCodeFromError(error) >= 500) noteFailureCause(req, error);
  if (isUnexpected(error)) req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
}
