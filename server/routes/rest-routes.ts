import type { RestOperation } from '@plant-store/fast-path';
import type { FastifyError, FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { NoRouteError } from '../errors/rest-error.js';
import { addJsonBodyParser, writeBackAdapterMarkers } from '../http/int64-edge.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { declaredOperations, operationFinder } from './rest-declarations.js';
import {
  anyBodyError,
  BODY_METHODS,
  bodyError,
  deleteBodyError,
  deleteBodyRefusal,
  notAMediaTypeOnDelete,
  queryError,
  unsupportedMediaType,
} from './rest-request-checks.js';
import { judgeTokenBeforeBody, type RequestCheck } from './token-first.js';

/**
 * trpc-to-openapi writes outputs with JSON.stringify, so int64 values go to it made writable. Its catch-all serves
 * every path, so only the operations' own paths and methods tell a 405 from a 404.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, serving, createContext }: ApiRoutesOptions) {
  const declared = declaredOperations(router);
  const operations = declared.map(({ operation }) => operation);
  // Media types some operation declares beside JSON (a merge patch): read as JSON, refused by the others.
  const otherMediaTypes = [...new Set(declared.flatMap(({ mediaTypes }) => mediaTypes))].filter((type) => type !== 'application/json');
  await app.register(async (rest) => {
    app.routeMethods.fromOperations(rest, declared);
    const operationOf = operationFinder(rest, declared);
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    writeBackAdapterMarkers(rest);
    // Any other media type, or one the operation does not declare: a 415 naming those it takes, before the body is read;
    // a DELETE's body of any of them gets the 400 of a DELETE with a body, and none at all gets by.
    const refusedMediaType = (request: FastifyRequest): Error | undefined =>
      request.method === 'DELETE'
        ? deleteBodyRefusal(request)
        : unsupportedMediaType(operationOf(request)?.mediaTypes ?? ['application/json'], request.method);
    for (const mediaType of otherMediaTypes) {
      // Where every operation of the method takes it (a merge patch on PATCH), no operation is looked up per request.
      const takenByAll = new Set(
        operations
          .map(({ method }) => method)
          .filter((method) => declared.every(({ operation, mediaTypes }) => operation.method !== method || mediaTypes.includes(mediaType))),
      );
      addJsonBodyParser(rest, mediaType, (request) =>
        takenByAll.has(request.method) || operationOf(request)?.mediaTypes.includes(mediaType) ? undefined : refusedMediaType(request),
      );
    }
    rest.addContentTypeParser('*', (request, _payload, done) => {
      done(refusedMediaType(request) ?? null, undefined);
    });
    // A Content-Type that is no media type at all Fastify refuses before any parser: the same refusal, passed on to be
    // shaped, and a 400 saying so to a DELETE without a body.
    rest.setErrorHandler((error: FastifyError, request) => {
      if (error.code !== 'FST_ERR_CTP_INVALID_MEDIA_TYPE') throw error;
      throw refusedMediaType(request) ?? notAMediaTypeOnDelete();
    });
    // Callback-style hooks, one per route, its operation's checks chosen here: the body's on routes that take one; on
    // every route, `__proto__` and the like refused before trpc-to-openapi reads the query. The catch-all serves any
    // operation, so it finds the operation by URL, and answers 404/405 before a body is read.
    const declaredAs = (operation: RestOperation | undefined) =>
      declared.find(({ operation: { method, fastifyPath } }) => method === operation?.method && fastifyPath === operation.fastifyPath);
    const preHandlers = (operation: RestOperation | undefined): preHandlerHookHandler[] => {
      const own = declaredAs(operation);
      if (own === undefined) return [checkAnyBody, checkAnyQuery];
      // The operation the empty-parameter check found, where it looked (`GET /plants/` lists), else the route's own.
      const served = (request: FastifyRequest) => request.restOperation ?? own;
      const check: preHandlerHookHandler = BODY_METHODS.has(own.operation.method)
        ? (request, _reply, done) => {
            done(bodyError(request, own, otherMediaTypes) ?? queryError(request, own));
          }
        : (request, _reply, done) => {
            done(queryError(request, served(request)) ?? deleteBodyError(request));
          };
      return [check];
    };
    const checkAnyBody: preHandlerHookHandler = (request, _reply, done) => {
      done(anyBodyError(request, operationOf(request), otherMediaTypes) ?? deleteBodyError(request));
    };
    const checkAnyQuery: preHandlerHookHandler = (request, _reply, done) => {
      done(request.url.includes('?') ? queryError(request, operationOf(request)) : undefined);
    };
    // One onRequest hook per route: the route's own checks of its URL, then the token, before the body is read.
    const judged = (before?: RequestCheck) =>
      judgeTokenBeforeBody(createContext, (request) => operationOf(request)?.meta.scope, { before });
    const noRoute = (request: FastifyRequest) => (operationOf(request) ? undefined : new NoRouteError());
    // Fastify's route for `/plants/:id` also takes `/plants/`, which is not its operation's: judged as on the catch-all.
    const emptyParameters =
      (names: readonly string[]): RequestCheck =>
      (request) => {
        const parameters = request.params as Record<string, string | undefined>;
        return names.some((name) => parameters[name] === '') ? noRoute(request) : undefined;
      };
    const onRequests = (operation: RestOperation) => {
      const names = declaredAs(operation)?.pathParameters ?? [];
      return [judged(names.length > 0 ? emptyParameters(names) : undefined)];
    };
    await serving.registerRestRoutes(rest, { preHandlers, onRequests, catchAllOnRequest: judged(noRoute) });
  });
}
