import type { TRPCError } from '@trpc/server';
import type { NodeHTTPResponse } from '@trpc/server/adapters/node-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { createOpenApiNodeHttpHandler, type NodeHTTPRequest } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import type { OpenApiOperation } from '../routes/openapi-operations.js';
import type { RestAnswer } from '../routes/rest-routes.js';
import { OpenApiRequest, OpenApiResponse } from './openapi-shims.js';
import { createRestDirectCall } from './rest-direct-call.js';
import { createRunnerCaller, proceduresOf } from './run-procedure.js';

export interface FastRestOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  onError: (options: { error: TRPCError }) => void;
  /** The status and headers of each answer (rest-routes.ts in server/routes). */
  responseMeta: (answer: RestAnswer) => { status?: number; headers?: Record<string, string> };
  operations: readonly OpenApiOperation[];
  /** Applied to each procedure's output before trpc-to-openapi writes it as JSON. */
  mapOutput: (output: unknown) => unknown;
}

/** The handler is typed for Node's request and response; it is given the shims instead. */
type ShimRequest = OpenApiRequest & NodeHTTPRequest;
type ShimResponse = OpenApiResponse & NodeHTTPResponse;

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
export function registerFastRestRoutes(rest: FastifyInstance, { router, createContext, onError, responseMeta, operations, mapOutput }: FastRestOptions): void {
  const runnerRouter: AppRouter = { ...router, createCaller: createRunnerCaller(proceduresOf(router), mapOutput) as AppRouter['createCaller'] };
  const handle = createOpenApiNodeHttpHandler<AppRouter, ShimRequest, ShimResponse>({
    router: runnerRouter,
    createContext: ({ req }: { req: ShimRequest }) => createContext(req.fastify.headers.authorization),
    onError,
    responseMeta,
  });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- deliberately not an IncomingMessage
    await handle(new OpenApiRequest(request) as ShimRequest, new OpenApiResponse(reply) as ShimResponse);
    return reply;
  };
  const directCallOf = createRestDirectCall({ createContext, onError, responseMeta, mapOutput }, operations);
  for (const operation of operations) rest.route({ method: operation.method, url: operation.fastifyPath, handler: directCallOf(operation, handler) });
  rest.route({ method: OPENAPI_METHODS, url: '/*', handler });
}
