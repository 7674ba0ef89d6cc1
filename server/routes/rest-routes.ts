import type { TRPCError } from '@trpc/server';
import type { NodeHTTPResponse } from '@trpc/server/adapters/node-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { createOpenApiNodeHttpHandler, type NodeHTTPRequest, type OpenApiMeta } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/trpc.js';
import { OpenApiRequest, OpenApiResponse } from './openapi-shims.js';
import { createRunnerCaller, proceduresOf } from './run-procedure.js';

interface RestRoutesOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
}

/** The handler is typed for Node's request and response; it is given the shims instead. */
type ShimRequest = OpenApiRequest & NodeHTTPRequest;
type ShimResponse = OpenApiResponse & NodeHTTPResponse;

/** The methods trpc-to-openapi's own Fastify plugin serves. */
const OPENAPI_METHODS: HTTPMethods[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * Serves the procedures that have OpenAPI meta as REST (`POST /plants`), through trpc-to-openapi's
 * node-http handler. Errors are rethrown from `onError` so that the app's error handler, the one
 * place that shapes failures, answers them with the interface's `Error` body.
 *
 * Each operation gets an exact Fastify route; a catch-all route behind them hands everything
 * else to the same handler, so what trpc-to-openapi does with other paths (its case-insensitive
 * and trailing-slash matching, 404 for the rest) is unchanged.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, createContext }: RestRoutesOptions) {
  // The handler calls procedures through `router.createCaller(ctx)`; this caller runs them with
  // run-procedure.ts instead of tRPC's slower runner (same middlewares, parsers and results).
  const runnerRouter: AppRouter = { ...router, createCaller: createRunnerCaller(proceduresOf(router)) as AppRouter['createCaller'] };
  const handle = createOpenApiNodeHttpHandler<AppRouter, ShimRequest, ShimResponse>({
    router: runnerRouter,
    createContext: ({ req }: { req: ShimRequest }) => createContext(req.fastify.headers.authorization),
    onError: ({ error }: { error: TRPCError }) => {
      throw error;
    },
  });

  const handleWith = (bodyRequired: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    // trpc-to-openapi spreads the body into an object; an array or a string would turn into
    // numbered fields. Refuse them here with a message that says what was wrong.
    if (request.method === 'POST' && (bodyRequired || request.body !== undefined) && !isJsonObject(request.body)) {
      throw Object.assign(new Error('the request body must be a JSON object'), { statusCode: 400 });
    }
    // The shims stand in for Node's request and response (see openapi-shims.ts).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- deliberately not an IncomingMessage
    await handle(new OpenApiRequest(request) as ShimRequest, new OpenApiResponse(reply) as ShimResponse);
    return reply;
  };

  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    for (const { method, path } of openApiOperations(router)) rest.route({ method, url: path, handler: handleWith(true) });
    // A POST with no body to an unknown path is a 404, not a missing body.
    rest.route({ method: OPENAPI_METHODS, url: '/*', handler: handleWith(false) });
  });
}

/** Each REST operation of the router, with its path in Fastify's syntax (`/plants/:id`). */
function openApiOperations(router: AppRouter): { method: HTTPMethods; path: string }[] {
  return Object.values(router._def.procedures).flatMap((procedure) => {
    const openapi = (procedure as { _def: { meta?: OpenApiMeta } })._def.meta?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    return [{ method: openapi.method, path: openapi.path.replace(/\{(\w+)\}/g, ':$1') }];
  });
}

function isJsonObject(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
