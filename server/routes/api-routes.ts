import { createFastHandlers, describeMismatches, type FastHandlers } from '@plant-store/fast-path';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import { authChallengeHeaders } from '../errors/rest-error.js';
import { logUnexpectedTrpcError } from '../errors/trpc-error.js';
import { markTrpcInput, writableJson } from '../http/int64-edge.js';
import { responseMeta, rethrowRestError } from './rest-answers.js';

/** What the REST and tRPC routes serve: the router, how a call gets its context, and which adapters. */
export interface ApiRoutesOptions {
  router: AppRouter;
  createContext: (request: FastifyRequest) => Context;
  /** The fast path's handlers (@plant-store/fast-path); undefined: the stock adapters serve. */
  fastPath: FastHandlers | undefined;
}

/**
 * The fast path's handlers for the API, given what the stock adapters are given on each route
 * (rest-routes.ts, trpc-routes.ts). Undefined, with one warning in the log, when the installed
 * @trpc/server or trpc-to-openapi is not the version the fast path was tested with: the stock
 * adapters then serve, as with FAST_PATH=off.
 */
export function createApiFastPath(router: AppRouter, createContext: ApiRoutesOptions['createContext'], log: FastifyBaseLogger): FastHandlers | undefined {
  const { handlers, mismatches } = createFastHandlers({
    router,
    createContext,
    rest: { onError: rethrowRestError, responseMeta, mapOutput: writableJson },
    trpc: { errorHeaders: authChallengeHeaders, onError: logUnexpectedTrpcError, queryInput: (text) => markTrpcInput(text, 'query') },
  });
  if (mismatches) {
    log.warn({ versions: mismatches }, `fast path off: ${describeMismatches(mismatches)}; the stock tRPC and trpc-to-openapi adapters serve the API, as with FAST_PATH=off`);
  }
  return handlers;
}
