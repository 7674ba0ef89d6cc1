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

// The handler is typed for Node's request and response; it is given the shims instead.
type ShimRequest = OpenApiRequest & NodeHTTPRequest;
type ShimResponse = OpenApiResponse & NodeHTTPResponse;

export interface RestRouteHooks {
  /** The preHandler hooks of an operation's own route; of the catch-all, which may serve any operation, given none. */
  preHandlers?: (operation: RestOperation | undefined) => preHandlerHookHandler[];
  /** The onRequest hooks of an operation's own route. */
  onRequests?: (operation: RestOperation) => onRequestHookHandler[];
  catchAllOnRequest?: onRequestHookHandler;
}

/** The methods trpc-to-openapi's own Fastify plugin serves. */
const OPENAPI_METHODS: HTTPMethods[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

// A catch-all behind the operations' own routes hands everything else to trpc-to-openapi's handler, as its plugin
// does, so its case-insensitive and trailing-slash matching, and its 404s, are unchanged.
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
  const directCallOf = createRestDirectCall({ createContext, onError, responseMeta }, operations);
  const { preHandlers = () => [], onRequests = () => [], catchAllOnRequest } = hooks;
  for (const operation of operations) {
    rest.route({
      method: operation.method,
      url: operation.fastifyPath,
      handler: directCallOf(operation, handler),
      onRequest: onRequests(operation),
      preHandler: preHandlers(operation),
    });
  }
  rest.route({
    method: OPENAPI_METHODS,
    url: '/*',
    handler,
    preHandler: preHandlers(undefined),
    ...(catchAllOnRequest && { onRequest: catchAllOnRequest }),
  });
}
