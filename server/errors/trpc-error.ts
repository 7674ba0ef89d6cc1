import { trpcErrorBody } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { HTTP_STATUS_TRPC_ERROR_CODE } from 'trpc-to-openapi';
import type { FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { isUnexpected, toRestError, type RequestInfo } from './rest-error.js';

/** The procedures a /trpc request calls, one or a batch. */
export interface TrpcCalls {
  paths: readonly string[];
  batch: boolean;
}

/**
 * Failures before tRPC runs become TRPCErrors with REST's status and words, so the router's own formatter shapes them:
 * once for the request, or, given its calls, once per call as tRPC answers a call's own failure.
 */
export function toTrpcErrorEnvelope(router: AppRouter, error: unknown, request: RequestInfo, calls?: TrpcCalls) {
  const { statusCode, body, headers } = toRestError(error, request);
  const code = HTTP_STATUS_TRPC_ERROR_CODE[statusCode] ?? (statusCode < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
  const trpcError = new TRPCError({ code, message: body.message, cause: error });
  const bodyOf = (path?: string) => trpcErrorBody(router, trpcError, path);
  if (calls === undefined) return { statusCode, headers, body: bodyOf() };
  return { statusCode, headers, body: calls.batch ? calls.paths.map(bodyOf) : bodyOf(calls.paths[0]) };
}

/** The cause of any 5xx (a 503 from the database too) goes into the request's log line. */
export function logUnexpectedTrpcError({ error, req }: { error: TRPCError; req: FastifyRequest }): void {
  if (getHTTPStatusCodeFromError(error) >= 500) noteFailureCause(req, error);
  if (isUnexpected(error)) req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
}
