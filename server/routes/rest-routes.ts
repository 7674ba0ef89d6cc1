import { restOperations, type RestOperation } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerHookHandler, RouteHandlerMethod } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import { int64Json, reservedTextError } from '../../schemas/int64-json.js';
import { httpError } from '../errors/http-error.js';
import { keepEmptyQueryValues } from '../http/empty-query-values.js';
import { reservedParameterError } from '../http/reserved-query-names.js';
import type { RouteMethods } from '../http/route-methods.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { responseMeta, rethrowRestError } from './rest-answers.js';

/**
 * Serves the procedures that have OpenAPI meta as REST (`POST /plants`), through trpc-to-openapi:
 * its node-http handler behind the fast path (@plant-store/fast-path), or its own Fastify plugin
 * (FAST_PATH=off). Failures go to the app's error handler (rest-answers.ts). trpc-to-openapi
 * writes outputs with JSON.stringify, so their int64 values go to it made writable
 * (schemas/int64-json.ts): raw JSON numbers, or on Node 20 markers that the app writes back as
 * exact JSON numbers as it sends the answer.
 *
 * The paths and methods of the operations go to `routeMethods`: the catch-all that serves them
 * serves every path, so only they tell a 405 from a 404.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, createContext, fastPath }: ApiRoutesOptions, routeMethods: RouteMethods) {
  const operations = restOperations(router);
  for (const operation of operations) routeMethods.add([operation.method], (url) => operation.matchesUrl(url));
  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    // Callback-style hooks on the routes that need them, in either mode. The body check, on the
    // routes that take a body method (the operations' and the catch-all): none at all on GET and
    // DELETE routes. On the catch-all only, which the common request never reaches: the 404 or
    // 405 of a request no operation serves, answered before its body is read (a PUT /plants is
    // refused for its method, whatever its body). And in every handler, before trpc-to-openapi
    // reads the query, its empty values kept and `__proto__` and the like refused: a look for `?` when there is none.
    const checkBody: preHandlerHookHandler = (request, _reply, done) => {
      done(nonObjectBodyError(request, operations));
    };
    const checkOperation: onRequestHookHandler = (request, _reply, done) => {
      // trpc-to-openapi's own refusal, which the app's error handler tells from a procedure's NOT_FOUND.
      done(isOperationRequest(request, operations) ? undefined : new TRPCError({ code: 'NOT_FOUND', message: 'Not found' }));
    };
    rest.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      if (methods.some((method) => BODY_METHODS.has(method))) route.preHandler = [...[route.preHandler ?? []].flat(), checkBody];
      if (route.url === CATCH_ALL) route.onRequest = [...[route.onRequest ?? []].flat(), checkOperation];
      const handler: RouteHandlerMethod = route.handler;
      route.handler = function (request, reply) {
        if (request.url.includes('?')) {
          keepEmptyQueryValues(request.query);
          const reserved = reservedParameterError(request.query);
          if (reserved) throw reserved;
        }
        return handler.call(this, request, reply);
      };
    });
    if (fastPath) {
      fastPath.registerRestRoutes(rest);
    } else {
      // The plugin stringifies the body (to build a fetch Request for its abort signal) and hands
      // the parsed body to the caller, which revives it: bigints go to it as markers.
      rest.addHook('preHandler', (request, _reply, done) => {
        request.body = int64Json.mark(request.body);
        done(markerPrefixInQuery(request));
      });
      await rest.register(fastifyTRPCOpenApiPlugin, {
        router: withInt64Markers(router),
        createContext: ({ req }: { req: FastifyRequest }) => createContext(req.headers.authorization),
        onError: rethrowRestError,
        responseMeta,
      });
    }
  });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The route behind the operations' own, in either mode: every other path and method goes to trpc-to-openapi's handler. */
const CATCH_ALL = '/*';

/** Whether an operation serves the request's method (a HEAD: GET) at its path, as trpc-to-openapi matches paths. */
function isOperationRequest(request: FastifyRequest, operations: readonly RestOperation[]): boolean {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return operations.some((operation) => operation.method === method && operation.matchesUrl(request.url));
}

/**
 * trpc-to-openapi spreads the body into an object, so an array or a string would turn into
 * numbered fields: refuse them with a message that says what was wrong. An operation's body is
 * required; a request with no body to an unknown path goes on to its 404.
 *
 * trpc-to-openapi also compares the media type case-sensitively, where Fastify's parser (and
 * RFC 9110) does not: `APPLICATION/JSON` has been parsed as JSON, so it is passed on lower-cased.
 */
function nonObjectBodyError(request: FastifyRequest, operations: readonly RestOperation[]): Error | undefined {
  if (!BODY_METHODS.has(request.method)) return undefined;
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && !contentType.startsWith('application/json')) request.headers['content-type'] = contentType.toLowerCase();
  const { body } = request;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return undefined;
  return body !== undefined || isOperationRequest(request, operations) ? httpError(400, 'the request body must be a JSON object') : undefined;
}

/**
 * With the stock plugin the caller revives the whole input (withInt64Markers), query parameters
 * included: one that holds the int64 marker prefix is refused, so no client text is ever read as
 * a number. Such a parameter needs a NUL, which a URL can only carry as `%00`: other requests
 * pay one substring test. (Path parameters reach the procedure still percent-encoded.)
 */
function markerPrefixInQuery(request: FastifyRequest): Error | undefined {
  if (!request.url.includes('%00')) return undefined;
  const values = Object.values(request.query as Record<string, unknown>).flat();
  const forged = values.some((value) => typeof value === 'string' && int64Json.holdsMarkerPrefix(value));
  return forged ? httpError(400, reservedTextError().messageFor('the query')) : undefined;
}

/** A caller as tRPC builds it: each level is callable (a procedure) and indexable (a nested router). */
type CallerLevel = ((input: unknown) => Promise<unknown>) & { readonly [key: string]: CallerLevel };

/** The router, its callers taking inputs with int64 markers and giving outputs made writable. */
function withInt64Markers(router: AppRouter): AppRouter {
  const wrap = (level: CallerLevel): CallerLevel =>
    new Proxy(level, {
      get: (target, key) => (typeof key === 'string' ? wrap(target[key] as CallerLevel) : undefined),
      apply: async (target, _this, [input]: unknown[]) => int64Json.writable(await target(int64Json.revive(input))),
    });
  const createCaller = (ctx: unknown) => wrap(router.createCaller(ctx as never) as unknown as CallerLevel);
  return { ...router, createCaller: createCaller as unknown as AppRouter['createCaller'] };
}
