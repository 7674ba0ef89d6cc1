import type { NodeHTTPResponse } from '@trpc/server/adapters/node-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { createOpenApiNodeHttpHandler, type NodeHTTPRequest, type OpenApiRouter } from 'trpc-to-openapi';
import { OpenApiRequest, OpenApiResponse } from './openapi-shims.js';
import type { RestOptions } from './options.js';
import { createRestDirectCall } from './rest-direct-call.js';
import type { RestOperation } from './rest-operations.js';
import { createRunnerCaller, proceduresOf } from './run-procedure.js';

export interface FastRestOptions<TContext> extends RestOptions<TContext> {
  router: OpenApiRouter;
  createContext: (request: FastifyRequest) => TContext;
  operations: readonly RestOperation[];
}

/** The handler is typed for Node's request and response; it is given the shims instead. */
type ShimRequest = OpenApiRequest & NodeHTTPRequest;
type ShimResponse = OpenApiResponse & NodeHTTPResponse;

/** Hooks the app declares on the routes as they are added. */
export interface RestRouteHooks {
  /** On every route that may take a body: the operations' POST, PUT and PATCH, and the catch-all. */
  bodyPreHandler?: preHandlerHookHandler;
  /** On every route, after `bodyPreHandler`. */
  preHandler?: preHandlerHookHandler;
  /** On the catch-all, which answers every path and method no operation's route does. */
  catchAllOnRequest?: onRequestHookHandler;
}

const BODY_METHODS = new Set<HTTPMethods>(['POST', 'PUT', 'PATCH']);

/** The methods trpc-to-openapi's own Fastify plugin serves. */
const OPENAPI_METHODS: HTTPMethods[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * trpc-to-openapi's node-http handler, as its Fastify plugin mounts it, but given light request
 * and response shims (openapi-shims.ts) and a caller that runs procedures with run-procedure.ts.
 *
 * Each operation gets an exact Fastify route, answered by the direct call (rest-direct-call.ts);
 * a catch-all route behind them hands everything else to the handler, as the plugin's one
 * catch-all does, so what trpc-to-openapi does with other paths (its case-insensitive and
 * trailing-slash matching, 404 for the rest) is unchanged.
 */
export function registerFastRestRoutes<TContext>(
  rest: FastifyInstance,
  options: FastRestOptions<TContext>,
  hooks: RestRouteHooks = {},
): void {
  const { router, createContext, onError, responseMeta, operations, mapOutput } = options;
  const runnerRouter: OpenApiRouter = {
    ...router,
    createCaller: createRunnerCaller(proceduresOf(router), mapOutput) as OpenApiRouter['createCaller'],
  };
  const handle = createOpenApiNodeHttpHandler<OpenApiRouter, ShimRequest, ShimResponse>({
    router: runnerRouter,
    createContext: ({ req }: { req: ShimRequest }) => createContext(req.fastify),
    onError,
    responseMeta,
  });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- deliberately not an IncomingMessage
    await handle(new OpenApiRequest(request) as ShimRequest, new OpenApiResponse(reply) as ShimResponse);
    return reply;
  };
  const directCallOf = createRestDirectCall({ createContext, onError, responseMeta, mapOutput }, operations);
  const { bodyPreHandler, preHandler, catchAllOnRequest } = hooks;
  const preHandlers = (takesBody: boolean) => [
    ...(takesBody && bodyPreHandler ? [bodyPreHandler] : []),
    ...(preHandler ? [preHandler] : []),
  ];
  for (const operation of operations) {
    rest.route({
      method: operation.method,
      url: operation.fastifyPath,
      handler: directCallOf(operation, handler),
      preHandler: preHandlers(BODY_METHODS.has(operation.method)),
    });
  }
  rest.route({
    method: OPENAPI_METHODS,
    url: '/*',
    handler,
    preHandler: preHandlers(true),
    ...(catchAllOnRequest && { onRequest: catchAllOnRequest }),
  });
}
