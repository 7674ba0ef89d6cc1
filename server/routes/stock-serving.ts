import { answerSignal, procedureEntries, type RestRouteHooks } from '@plant-store/fast-path';
import type { NodeHTTPResponse } from '@trpc/server/adapters/node-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { createOpenApiNodeHttpHandler, fastifyTRPCOpenApiPlugin, type NodeHTTPRequest } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import { forgedMarkerInQuery, markBody, reviveMarked, writableJson } from '../http/int64-edge.js';
import type { ApiServing } from './api-routes.js';
import { GetOfHead } from './get-of-head.js';
import { responseMeta, rethrowRestError } from './rest-answers.js';

/** The stock adapters: trpc-to-openapi's Fastify plugin for REST, tRPC's own handler for every /trpc call. */
export function stockServing(router: AppRouter, createContext: (request: FastifyRequest) => Context): ApiServing {
  return {
    registerRestRoutes: (rest, hooks) => registerStockRestRoutes(rest, router, createContext, hooks),
    tryTrpcCall: () => undefined,
  };
}

async function registerStockRestRoutes(
  rest: FastifyInstance,
  router: AppRouter,
  createContext: (request: FastifyRequest) => Context,
  hooks: RestRouteHooks,
) {
  // The plugin stringifies the body (to build a fetch Request for its abort signal) and hands
  // the parsed body to the caller, which revives it: bigints go to it as markers.
  rest.addHook('preHandler', (request, _reply, done) => {
    request.body = markBody(request.body);
    done(forgedMarkerInQuery(request));
  });
  // The plugin's one route is the catch-all: its hooks are this context's.
  for (const hook of hooks.preHandlers?.(undefined) ?? []) rest.addHook('preHandler', hook);
  if (hooks.catchAllOnRequest) rest.addHook('onRequest', hooks.catchAllOnRequest);
  // The plugin makes the caller from the context alone: the call's signal goes with the context, as tRPC's handler
  // makes it. Made here, not the plugin's own: that one misses a connection closed before the call starts.
  const signals = new WeakMap<Context, AbortSignal>();
  const withSignal = (context: Context, reply: FastifyReply) => {
    signals.set(context, answerSignal(reply));
    return context;
  };
  const markedRouter = withInt64Markers(router, (context) => signals.get(context));
  // Declared before the plugin's catch-all, so Fastify adds no HEAD route of its own.
  rest.head(
    '/*',
    answerHeadAsGet(markedRouter, (request, reply) => withSignal(createContext(request), reply)),
  );
  await rest.register(fastifyTRPCOpenApiPlugin, {
    router: markedRouter,
    createContext: ({ req, res }: { req: FastifyRequest; res: FastifyReply }) => withSignal(createContext(req), res),
    onError: rethrowRestError,
    responseMeta,
  });
}

/** A caller per call with inputs revived from markers and outputs made writable; the router is flat. */
function withInt64Markers(router: AppRouter, signalOf: (ctx: Context) => AbortSignal | undefined): AppRouter {
  const paths = procedureEntries(router).map(({ path }) => path);
  const createCaller = (ctx: Context) => {
    const caller = router.createCaller(ctx, { signal: signalOf(ctx) }) as unknown as Record<string, (input: unknown) => Promise<unknown>>;
    const markedCaller: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const path of paths) {
      const call = caller[path];
      if (call) markedCaller[path] = async (input) => writableJson(await call(reviveMarked(input)));
    }
    return markedCaller;
  };
  return { ...router, createCaller: createCaller as unknown as AppRouter['createCaller'] };
}

/** trpc-to-openapi's own handler, which reads a fetch Request as its plugin reads Fastify's, given the GET a HEAD asks about. */
function answerHeadAsGet(router: AppRouter, createContext: (request: FastifyRequest, reply: FastifyReply) => Context): RouteHandlerMethod {
  const handle = createOpenApiNodeHttpHandler<AppRouter, GetOfHead & NodeHTTPRequest, ReplyWriter & NodeHTTPResponse>({
    router,
    createContext: ({ req, res }) => createContext(req.head, res.reply),
    onError: rethrowRestError,
    responseMeta,
  });
  return async (request, reply) => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- a fetch Request, which the handler also takes
    await handle(new GetOfHead(request) as GetOfHead & NodeHTTPRequest, new ReplyWriter(reply) as ReplyWriter & NodeHTTPResponse);
    return reply;
  };
}

/** What the handler writes, through Fastify's reply, so the app's hooks see the answer. */
class ReplyWriter {
  statusCode = 200;

  constructor(readonly reply: FastifyReply) {}

  setHeader(name: string, value: string | number | readonly string[]): void {
    this.reply.header(name, value);
  }

  end(body?: string): void {
    void this.reply.code(this.statusCode).send(body);
  }
}
