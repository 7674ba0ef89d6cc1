import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import { apiMethods } from '../routes/api-methods.js';
import { conditionalRequestHeaders } from '../routes/rest-declarations.js';
import { registerCors } from '../http/cors.js';
import { registerErrorHandling } from '../http/error-handling.js';
import { answerHeadAsGet } from '../http/head-requests.js';
import { registerJsonBodyParser } from '../http/int64-edge.js';
import { registerRequestHooks } from '../http/request-hooks.js';
import { RouteMethods } from '../http/route-methods.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods each path serves, for 405 with `Allow`. */
    routeMethods: RouteMethods;
  }
}

/**
 * What every route shares, registered before any route: body reading, error shapes, request ids,
 * closing, HEAD, CORS.
 */
export const httpPlugin = fp<{ corsOrigins: readonly string[] }>(
  async (app, { corsOrigins }) => {
    const routeMethods = new RouteMethods();
    routeMethods.record(app);
    app.decorate('routeMethods', routeMethods);
    answerHeadAsGet(app);
    registerErrorHandling(app, (url) => routeMethods.at(url));
    registerJsonBodyParser(app);
    registerRequestHooks(app);
    await registerCors(app, corsOrigins, apiMethods(appRouter), conditionalRequestHeaders(appRouter));
  },
  { name: 'http' },
);
