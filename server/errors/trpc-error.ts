import { trpcErrorBody } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { HTTP_STATUS_TRPC_ERROR_CODE } from 'trpc-to-openapi';
import type { FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { isUnexpected, toRestError, type RequestInfo } from './rest-error.js';

/**
 * The one place that turns a failure on the tRPC routes into tRPC's error envelope, for the
 * failures Fastify raises before tRPC runs (body too large, not UTF-8, unknown procedure path).
 * Failures inside tRPC are shaped by tRPC itself, through the router's error formatter; so is
 * this envelope: the failure becomes a TRPCError with the status and words the REST API would
 * give it, and the router's own error formatter makes the body.
 */
export function toTrpcErrorEnvelope(router: AppRouter, error: unknown, request: RequestInfo) {
  const { statusCode, body, headers } = toRestError(error, request);
  const code = HTTP_STATUS_TRPC_ERROR_CODE[statusCode] ?? (statusCode < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
  const trpcError = new TRPCError({ code, message: body.message, cause: error });
  return { statusCode, headers, body: trpcErrorBody(router, trpcError) };
}

/**
 * tRPC's `onError`: a failure the service did not foresee is logged in full under the request,
 * and the cause of any 5xx (a 503 from the database too) goes into the request's log line.
 */
export function logUnexpectedTrpcError({ error, req }: { error: TRPCError; req: FastifyRequest }): void {
  if (getHTTPStatusCodeFromError(error) >= 500) noteFailureCause(req, error);
  if (isUnexpected(error)) req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
}
