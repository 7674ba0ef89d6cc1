import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiRouter } from 'trpc-to-openapi';
import { installedVersion, versionMismatches, type VersionMismatch } from './installed-versions.js';
import type { FastHandlersOptions } from './options.js';
import { registerFastRestRoutes, type RestRouteHooks } from './rest-routes.js';
import { restOperations } from './rest-operations.js';
import { createDirectCall } from './trpc-direct-call.js';

/** What serves a router's REST operations and its /trpc calls in place of the stock adapters. */
export interface FastHandlers {
  /**
   * Mounts the REST operations on `rest` (a Fastify instance or encapsulated context, its own
   * hooks and parsers already set): one route per operation, and a `/*` catch-all that answers
   * every other path and method as trpc-to-openapi's handler does, each with the `hooks` given.
   */
  registerRestRoutes(rest: FastifyInstance, hooks?: RestRouteHooks): void;
  /**
   * The answer to a request of the /trpc route for the procedure at `path`, when it is a single
   * call; undefined, decided at once, when tRPC's own request handler must answer it.
   */
  tryTrpcCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> | undefined;
}

/** The handlers, or, when an installed package is not the version they were tested with, the mismatches. */
export type FastPath = { handlers: FastHandlers; mismatches?: undefined } | { handlers?: undefined; mismatches: VersionMismatch[] };

/**
 * The fast path for a router. Checks first that the installed `@trpc/server` and
 * `trpc-to-openapi` are the versions this package was tested with: when one is not, there are
 * no handlers, only the mismatches, and the caller serves with the stock adapters.
 */
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
