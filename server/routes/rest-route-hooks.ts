import type { RestOperation, RestRouteHooks } from '@plant-store/fast-path';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Context } from '../../routers/context.js';
import { NoRouteError } from '../errors/rest-error.js';
import type { DeclaredOperation } from './rest-declarations.js';
import { anyBodyError, BODY_METHODS, bodyError, deleteBodyError, queryError } from './rest-request-checks.js';
import { judgeTokenBeforeBody, type RequestCheck } from './token-first.js';

/**
 * Callback-style hooks, one per route, its operation's checks chosen here. onRequest: the route's own checks of its URL,
 * then the token, before the body is read. preHandler: the body's on routes that take one; on every route, `__proto__`
 * and the like refused before trpc-to-openapi reads the query. The catch-all serves any operation, so it finds the
 * operation by URL, and answers 404/405 before a body is read.
 */
export function restRouteHooks(
  declared: readonly DeclaredOperation[],
  otherMediaTypes: readonly string[],
  operationOf: (request: FastifyRequest) => DeclaredOperation | undefined,
  createContext: (request: FastifyRequest) => Context,
): RestRouteHooks {
  const declaredAs = (operation: RestOperation | undefined) =>
    declared.find(({ operation: { method, fastifyPath } }) => method === operation?.method && fastifyPath === operation.fastifyPath);

  const checkAnyBody: preHandlerHookHandler = (request, _reply, done) => {
    done(anyBodyError(request, operationOf(request), otherMediaTypes) ?? deleteBodyError(request));
  };
  const checkAnyQuery: preHandlerHookHandler = (request, _reply, done) => {
    done(request.url.includes('?') ? queryError(request, operationOf(request)) : undefined);
  };
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

  const judged = (before?: RequestCheck) => judgeTokenBeforeBody(createContext, (request) => operationOf(request)?.meta.scope, { before });
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
  return { preHandlers, onRequests, catchAllOnRequest: judged(noRoute) };
}
