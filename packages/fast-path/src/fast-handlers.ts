import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiRouter } from 'trpc-to-openapi';
import { installedVersion, versionMismatches, type VersionMismatch } from './installed-versions.js';
import type { FastHandlersOptions } from './options.js';
import { registerFastRestRoutes, type RestRouteHooks } from './rest-routes.js';
import { restOperations } from './rest-operations.js';
import { createDirectCall } from './trpc-direct-call.js';

/** What serves a router's REST operations and its /trpc calls in place of the stock adapters. */
export interface FastHandlers {
  /** Mounts a route per REST operation on `rest`, and a `/*` catch-all that answers the rest as trpc-to-openapi does. */
  registerRestRoutes(rest: FastifyInstance, hooks?: RestRouteHooks): void;
  /** The answer to a single /trpc call; undefined, decided synchronously, when tRPC's own handler must answer. */
  tryTrpcCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> | undefined;
}

export type FastPath = { handlers: FastHandlers; mismatches?: undefined } | { handlers?: undefined; mismatches: VersionMismatch[] };

/** The fast path for a router; only the mismatches when an installed package is not the tested version. */
export function createFastHandlers<TRouter extends OpenApiRouter, TContext extends object>(
  options: FastHandlersOptions<TRouter, TContext>,
): FastPath {
  const mismatches = versionMismatches(options.installedVersion ?? installedVersion);
  if (mismatches.length > 0) return { mismatches };
  const { router, createContext, rest, trpc } = options;
  const operations = restOperations(router);
  const tryTrpcCall = createDirectCall({ router, createContext, ...trpc });
  return {
    handlers: {
      registerRestRoutes: (instance, hooks) => {
        registerFastRestRoutes(instance, { router, createContext, operations, ...rest }, hooks);
      },
      tryTrpcCall,
    },
  };
}
