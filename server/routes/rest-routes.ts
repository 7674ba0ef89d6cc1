import { restOperations, type RestOperation } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { httpError } from '../errors/http-error.js';
import { reservedParameterError } from '../http/reserved-query-names.js';
import type { RouteMethods } from '../http/route-methods.js';
import type { ApiRoutesOptions } from './api-routes.js';

/**
 * Serves the procedures that have OpenAPI meta as REST (`POST /plants`), through trpc-to-openapi,
 * by whichever serving the API plugin chose, with the checks every REST route declares. Failures
 * go to the app's error handler. trpc-to-openapi writes outputs with JSON.stringify, so their int64
 * values go to it made writable: raw JSON numbers, or on Node 20 markers that the app writes back
 * as exact JSON numbers as it sends the answer.
 *
 * The paths and methods of the operations go to `routeMethods`: the catch-all that serves them
 * serves every path, so only they tell a 405 from a 404.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, serving }: ApiRoutesOptions, routeMethods: RouteMethods) {
  const operations = restOperations(router);
  for (const operation of operations) routeMethods.add([operation.method], (url) => operation.matchesUrl(url));
  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    // Callback-style hooks on the routes that need them, in either mode. The body check, on the
    // routes that take a body method (the operations' and the catch-all): none at all on GET and
    // DELETE routes. On the catch-all only, which the common request never reaches: the 404 or
    // 405 of a request no operation serves, answered before its body is read (a PUT /plants is
    // refused for its method, whatever its body). And on every route, before trpc-to-openapi
    // reads the query, `__proto__` and the like refused: a look for `?` when there is none.
    const checkBody: preHandlerHookHandler = (request, _reply, done) => {
      done(nonObjectBodyError(request, operations));
    };
    const checkOperation: onRequestHookHandler = (request, _reply, done) => {
      // trpc-to-openapi's own refusal, which the app's error handler tells from a procedure's NOT_FOUND.
      done(isOperationRequest(request, operations) ? undefined : new TRPCError({ code: 'NOT_FOUND', message: 'Not found' }));
    };
    const checkQuery: preHandlerHookHandler = (request, _reply, done) => {
      done(request.url.includes('?') ? reservedParameterError(request.query) : undefined);
    };
    await serving.registerRestRoutes(rest, { bodyPreHandler: checkBody, preHandler: checkQuery, catchAllOnRequest: checkOperation });
  });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

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
