import { createFastHandlers, describeMismatches, type RestRouteHooks } from '@plant-store/fast-path';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import { errorHeaders } from '../errors/rest-error.js';
import { logUnexpectedTrpcError } from '../errors/trpc-error.js';
import { writableJson } from '../http/int64-edge.js';
import { entityTagHeaders, responseMeta, rethrowRestError } from './rest-answers.js';

/** What answers the API's requests: the fast path, or the stock adapters (chosen once, by the API plugin). */
export interface ApiServing {
  registerRestRoutes(rest: FastifyInstance, hooks: RestRouteHooks): Promise<void> | void;
  /** The answer to a /trpc call it answers itself; undefined, decided at once, when tRPC's own handler must. */
  tryTrpcCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> | undefined;
}

export interface ApiRoutesOptions {
  router: AppRouter;
  createContext: (request: FastifyRequest) => Context;
  serving: ApiServing;
  /** Calls one /trpc batch may make: more is refused (400) before any runs. */
  maxBatchSize: number;
}

/** Undefined, with one warning, when @trpc/server or trpc-to-openapi is not the version the fast path was tested with. */
export function createApiFastPath(
  router: AppRouter,
  createContext: ApiRoutesOptions['createContext'],
  log: FastifyBaseLogger,
): ApiServing | undefined {
  const { handlers, mismatches } = createFastHandlers({
    router,
    createContext,
    rest: { onError: rethrowRestError, responseMeta, mapOutput: writableJson },
    trpc: {
      errorHeaders,
      dataHeaders: entityTagHeaders,
      onError: logUnexpectedTrpcError,
    },
  });
  if (mismatches) {
    log.warn(
      { versions: mismatches },
      `fast path off: ${describeMismatches(mismatches)}; the stock tRPC and trpc-to-openapi adapters serve the API, as with FAST_PATH=off`,
    );
  }
  return handlers;
}
