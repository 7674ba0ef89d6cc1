import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import { apiMethods } from '../routes/api-methods.js';
import { operationHeaders } from '../routes/rest-declarations.js';
import { refuseConnect, refuseUnknownExpectations } from '../http/client-errors.js';
import { limitConnections } from '../http/connection-limits.js';
import { registerCors } from '../http/cors.js';
import { registerErrorHandling } from '../http/error-handling.js';
import { holdContinue } from '../http/expect-continue.js';
import { registerJsonEdge } from '../http/int64-edge.js';
import { registerUrlRefusals, registerRequestHooks } from '../http/request-hooks.js';
import { RouteMethods } from '../http/route-methods.js';
import { TRPC_PREFIX } from '../routes/trpc-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods each path serves, for 405 with `Allow`, as the routes added after the http plugin declare them. */
    routeMethods: RouteMethods;
  }
}

/**
 * What every route shares, registered before any route: body reading, error shapes, request ids,
 * closing, connection limits, HEAD, CORS.
 */
export interface HttpOptions {
  corsOrigins: readonly string[];
  http: { maxPipelinedRequests: number; maxConnections: number | undefined };
}

export const httpPlugin = fp<HttpOptions>(
  async (app, { corsOrigins, http }) => {
    const routeMethods = new RouteMethods();
    app.decorate('routeMethods', routeMethods);
    registerErrorHandling(app, { prefix: TRPC_PREFIX, router: appRouter }, (url) => routeMethods.at(url));
    registerJsonEdge(app);
    registerRequestHooks(app, http);
    limitConnections(app, http);
    refuseUnknownExpectations(app);
    refuseConnect(app);
    holdContinue(app);
    await registerCors(app, corsOrigins, apiMethods(appRouter), operationHeaders(appRouter));
    registerUrlRefusals(app);
    // After CORS: its OPTIONS route answers preflights on every path, so it is no path's own method.
    routeMethods.recordRoutes(app);
  },
  { name: 'http' },
);
