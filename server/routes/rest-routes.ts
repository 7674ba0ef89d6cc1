import { restOperations, type RestOperation } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { addJsonBodyParser } from '../http/int64-edge.js';
import { httpError } from '../errors/http-error.js';
import { reservedParameterError } from '../http/reserved-query-names.js';
import type { RouteMethods } from '../http/route-methods.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { declaredOperations, type DeclaredOperation } from './rest-declarations.js';

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
  const all: CheckedOperation[] = declaredOperations(router).map((entry) => ({
    ...entry,
    checksBody: entry.pathParameters.length > 0 || entry.meta.conditional?.ifMatch === true,
  }));
  const declared: DeclaredBodies = {
    all,
    byRoute: new Map(all.map((entry) => [`${entry.operation.method} ${entry.operation.fastifyPath}`, entry])),
  };
  // Media types some operation declares beside JSON (a merge patch): read as JSON, refused by the others.
  const otherMediaTypes = [...new Set(all.flatMap(({ mediaTypes }) => mediaTypes))].filter((type) => type !== 'application/json');
  for (const operation of operations) routeMethods.add([operation.method], (url) => operation.matchesUrl(url));
  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    for (const mediaType of otherMediaTypes) addJsonBodyParser(rest, mediaType);
    // Callback-style hooks on the routes that need them, in either mode. The body check, on the
    // routes that take a body method (the operations' and the catch-all): none at all on GET and
    // DELETE routes. On the catch-all only, which the common request never reaches: the 404 or
    // 405 of a request no operation serves, answered before its body is read (a PUT /plants is
    // refused for its method, whatever its body). And on every route, before trpc-to-openapi
    // reads the query, `__proto__` and the like refused: a look for `?` when there is none.
    const checkBody: preHandlerHookHandler = (request, _reply, done) => {
      done(nonObjectBodyError(request, operations) ?? declaredBodyError(request, declared, otherMediaTypes));
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

/** An operation, and whether a JSON body to it is checked for keys it may not hold. */
type CheckedOperation = DeclaredOperation & { checksBody: boolean };

/** The operations, and each by its own route (`PATCH /plants/:id`), as the fast path mounts them. */
interface DeclaredBodies {
  all: readonly CheckedOperation[];
  byRoute: ReadonlyMap<string, CheckedOperation>;
}

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
  return body !== undefined || isOperationRequest(request, operations)
    ? httpError(400, 'the request body must be a JSON object')
    : undefined;
}

/**
 * What an operation declares of its body: a media type beside JSON it takes is handed on as JSON
 * (trpc-to-openapi reads JSON only), one it does not take is a 415. A key its path gives (`id`)
 * or its header carries (`ifMatch`, If-Match) may not come in the body as well.
 */
function declaredBodyError(request: FastifyRequest, declared: DeclaredBodies, otherMediaTypes: readonly string[]): Error | undefined {
  const { method } = request;
  if (!BODY_METHODS.has(method)) return undefined;
  const contentType = request.headers['content-type'];
  const mediaType =
    contentType === undefined || contentType.startsWith('application/json')
      ? undefined
      : contentType.split(';', 1)[0]?.trim().toLowerCase();
  const other = mediaType !== undefined && otherMediaTypes.includes(mediaType);
  // An operation's own route names it; the catch-all (FAST_PATH=off, or a path that is not plain) matches the URL.
  const routed = declared.byRoute.get(`${method} ${request.routeOptions.url ?? ''}`);
  const found =
    routed ??
    declared.all.find(
      ({ operation, checksBody }) => operation.method === method && (other || checksBody) && operation.matchesUrl(request.url),
    );
  if (found === undefined || !(other || found.checksBody)) return undefined;
  if (other) {
    if (!found.mediaTypes.includes(mediaType))
      return httpError(415, `the body must be JSON: send it with Content-Type: ${found.mediaTypes.join(' or ')}`);
    request.headers['content-type'] = 'application/json';
  }
  const body = request.body as Record<string, unknown>;
  const fromPath = found.pathParameters.find((name) => Object.hasOwn(body, name));
  if (fromPath !== undefined)
    return httpError(400, `the body must not hold ${JSON.stringify(fromPath)}: the path gives it, and it never changes`);
  if (found.meta.conditional?.ifMatch && Object.hasOwn(body, 'ifMatch'))
    return httpError(400, 'unknown field "ifMatch": send the condition as the If-Match header');
  return undefined;
}
