import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { appRouter } from '../../routers/app.js';
import { createContextFactory, type Context, type RequestConditions } from '../../routers/context.js';
import { limitAuthFailures, type AuthFailureLimit } from '../http/auth-failure-limit.js';
import { createApiFastPath } from '../routes/api-routes.js';
import { registerRestRoutes } from '../routes/rest-routes.js';
import { stockServing } from '../routes/stock-serving.js';
import { registerTrpcRoutes } from '../routes/trpc-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** A call's context from an Authorization header, as the routes make it: for in-process callers. */
    apiContext: (authorization: string | undefined) => Context;
  }
  interface FastifyRequest {
    /** The context of the call this request made; its `principal` names the caller in the request's log line. */
    apiContext: Context | undefined;
  }
}

export interface ApiOptions {
  /** Serve through @plant-store/fast-path (when its versions match) or the stock adapters. */
  fastPath: boolean;
  /** Calls one /trpc batch may make. */
  maxBatchSize: number;
  authFailureLimit: AuthFailureLimit | undefined;
}

/** The request's conditional headers, for its procedure and its answer. */
function conditionsOf({ headers, method }: FastifyRequest): RequestConditions | undefined {
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = headers;
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  return { ifMatch, ifNoneMatch, read: method === 'GET' || method === 'HEAD' };
}

/** The plant API, as REST and over /trpc; the failed-authentication limit and request metrics guard only these routes. */
export const apiPlugin = fp<ApiOptions>(
  async (app, options) => {
    const contextOf = createContextFactory({ store: app.plantStore, verifyToken: app.verifyToken });
    app.decorate('apiContext', contextOf);
    app.decorateRequest('apiContext', undefined);
    // Once per request: REST makes it before reading the body, to judge the token.
    const createContext = (request: FastifyRequest): Context =>
      (request.apiContext ??= contextOf(request.headers.authorization, conditionsOf(request), request.id));
    // The one place that chooses: the fast path when asked for and its versions match, else the stock adapters.
    const fastPath = options.fastPath ? createApiFastPath(appRouter, createContext, app.log) : undefined;
    const api = {
      router: appRouter,
      createContext,
      serving: fastPath ?? stockServing(appRouter, createContext),
      maxBatchSize: options.maxBatchSize,
    };
    const { metrics, operations } = app.telemetry;
    await app.register(async (guarded) => {
      if (metrics && operations) metrics.countRequests(guarded, operations);
      if (options.authFailureLimit) await limitAuthFailures(guarded, options.authFailureLimit);
      await registerRestRoutes(guarded, api);
      await registerTrpcRoutes(guarded, api);
    });
  },
  { name: 'api', dependencies: ['telemetry', 'http', 'auth', 'plant-store'] },
);
