import { restOperations, type RestOperation } from '@plant-store/fast-path';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { addJsonBodyParser, writeBackAdapterMarkers } from '../http/int64-edge.js';
import { httpError } from '../errors/http-error.js';
import { reservedParameterError, unknownParametersError } from '../http/reserved-query-names.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { declaredOperations, type DeclaredOperation } from './rest-declarations.js';

/**
 * trpc-to-openapi writes outputs with JSON.stringify, so int64 values go to it made writable. Its catch-all serves
 * every path, so only the operations' own paths and methods tell a 405 from a 404.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, serving }: ApiRoutesOptions) {
  const operations = restOperations(router);
  const declared: CheckedOperation[] = declaredOperations(router).map((entry) => ({
    ...entry,
    checksBody: entry.pathParameters.length > 0 || entry.meta.conditional?.ifMatch === true,
  }));
  // Media types some operation declares beside JSON (a merge patch): read as JSON, refused by the others.
  const otherMediaTypes = [...new Set(declared.flatMap(({ mediaTypes }) => mediaTypes))].filter((type) => type !== 'application/json');
  for (const operation of operations) app.routeMethods.add([operation.method], (url) => operation.matchesUrl(url));
  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    writeBackAdapterMarkers(rest);
    for (const mediaType of otherMediaTypes) addJsonBodyParser(rest, mediaType);
    // Any other media type: a 415 naming those the operation takes.
    rest.addContentTypeParser('*', (request, _payload, done) => {
      done(unsupportedMediaType(declaredOperation(request, declared, true)?.mediaTypes ?? ['application/json'], request.method));
    });
    // Callback-style hooks, one per route, its operation's checks chosen here: the body's on routes that take one; on
    // every route, `__proto__` and the like refused before trpc-to-openapi reads the query. The catch-all serves any
    // operation, so it finds the operation by URL, and answers 404/405 before a body is read.
    const preHandlers = (operation: RestOperation | undefined): preHandlerHookHandler[] => {
      const own = declared.find(
        ({ operation: { method, fastifyPath } }) => method === operation?.method && fastifyPath === operation.fastifyPath,
      );
      if (own === undefined) return [checkAnyBody, checkAnyQuery];
      const check: preHandlerHookHandler = BODY_METHODS.has(own.operation.method)
        ? (request, _reply, done) => {
            done(bodyError(request, own, otherMediaTypes) ?? queryError(request, own));
          }
        : (request, _reply, done) => {
            done(queryError(request, own));
          };
      return [check];
    };
    const checkAnyBody: preHandlerHookHandler = (request, _reply, done) => {
      done(anyBodyError(request, operations, declared, otherMediaTypes));
    };
    const checkAnyQuery: preHandlerHookHandler = (request, _reply, done) => {
      done(request.url.includes('?') ? queryError(request, declaredOperation(request, declared, true)) : undefined);
    };
    const checkOperation: onRequestHookHandler = (request, _reply, done) => {
      // trpc-to-openapi's own refusal, which the app's error handler tells from a procedure's NOT_FOUND.
      done(isOperationRequest(request, operations) ? undefined : new TRPCError({ code: 'NOT_FOUND', message: 'Not found' }));
    };
    await serving.registerRestRoutes(rest, { preHandlers, catchAllOnRequest: checkOperation });
  });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

type CheckedOperation = DeclaredOperation & { checksBody: boolean };

/** Whether an operation serves the request's method (a HEAD: GET) at its path, as trpc-to-openapi matches paths. */
function isOperationRequest(request: FastifyRequest, operations: readonly RestOperation[]): boolean {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return operations.some((operation) => operation.method === method && operation.matchesUrl(request.url));
}

/** On an operation's own route: the body's checks below, with the operation known. */
function bodyError(request: FastifyRequest, operation: CheckedOperation, otherMediaTypes: readonly string[]): Error | undefined {
  const mediaType = otherMediaType(request, otherMediaTypes);
  if (!isObjectBody(request.body)) return httpError(400, 'the request body must be a JSON object');
  return mediaType === undefined && !operation.checksBody ? undefined : checkedBodyError(request, operation, mediaType);
}

/** trpc-to-openapi spreads the body into an object, so an array or a string would become numbered fields. */
function isObjectBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/**
 * The body's media type when it is one some operation declares beside JSON (read as JSON by its parser). trpc-to-openapi
 * compares media types case-sensitively, unlike RFC 9110, so any other spelling is passed on lower-cased.
 */
function otherMediaType(request: FastifyRequest, otherMediaTypes: readonly string[]): string | undefined {
  const contentType = request.headers['content-type'];
  if (contentType === undefined || contentType.startsWith('application/json')) return undefined;
  if (otherMediaTypes.includes(contentType)) return contentType;
  const lowerCase = (request.headers['content-type'] = contentType.toLowerCase());
  const mediaType = lowerCase.split(';', 1)[0]?.trim();
  return mediaType !== undefined && otherMediaTypes.includes(mediaType) ? mediaType : undefined;
}

/** trpc-to-openapi reads JSON only, so another declared media type goes on as JSON; a key the path or If-Match gives is refused. */
function checkedBodyError(request: FastifyRequest, operation: CheckedOperation, mediaType: string | undefined): Error | undefined {
  if (mediaType !== undefined) {
    if (!operation.mediaTypes.includes(mediaType)) return unsupportedMediaType(operation.mediaTypes, request.method);
    request.headers['content-type'] = 'application/json';
  }
  const body = request.body as Record<string, unknown>;
  const fromPath = operation.pathParameters.find((name) => Object.hasOwn(body, name));
  if (fromPath !== undefined)
    return httpError(400, `the body must not hold ${JSON.stringify(fromPath)}: the path gives it, and it never changes`);
  if (operation.meta.conditional?.ifMatch && Object.hasOwn(body, 'ifMatch'))
    return httpError(400, 'unknown field "ifMatch": send the condition as the If-Match header');
  return undefined;
}

/** On the catch-all: the body's checks of the operation its URL names, if any; no body is refused where none serves it. */
function anyBodyError(
  request: FastifyRequest,
  operations: readonly RestOperation[],
  declared: readonly CheckedOperation[],
  otherMediaTypes: readonly string[],
): Error | undefined {
  if (!BODY_METHODS.has(request.method)) return undefined;
  const mediaType = otherMediaType(request, otherMediaTypes);
  if (!isObjectBody(request.body)) {
    return request.body !== undefined || isOperationRequest(request, operations)
      ? httpError(400, 'the request body must be a JSON object')
      : undefined;
  }
  const found = declaredOperation(request, declared, mediaType !== undefined);
  if (found === undefined || !(mediaType !== undefined || found.checksBody)) return undefined;
  return checkedBodyError(request, found, mediaType);
}

/** The operation whose path the URL matches, as trpc-to-openapi matches paths (on the catch-all). */
function declaredOperation(request: FastifyRequest, declared: readonly CheckedOperation[], anyBody: boolean): CheckedOperation | undefined {
  const { method } = request;
  return declared.find(
    ({ operation, checksBody }) => operation.method === method && (anyBody || checksBody) && operation.matchesUrl(request.url),
  );
}

/** RFC 5789 section 2.2: a PATCH refused for its media type says which it takes in `Accept-Patch`. */
function unsupportedMediaType(mediaTypes: readonly string[], method: string): Error {
  const message = `the body must be JSON: send it with Content-Type: ${mediaTypes.join(' or ')}`;
  return httpError(415, message, method === 'PATCH' ? { 'accept-patch': mediaTypes.join(', ') } : undefined);
}

/** An operation with a body takes nothing from the query: a parameter there would be silently dropped. */
function queryOfBodyError(request: FastifyRequest): Error | undefined {
  if (!BODY_METHODS.has(request.method)) return undefined;
  const names = Object.keys(request.query as Record<string, unknown>);
  return names.length === 0 ? undefined : unknownParametersError(names, 'this operation takes no query parameters');
}

/** The query's checks, for the operation served (undefined: none, or not known). */
function queryError(request: FastifyRequest, operation: CheckedOperation | undefined): Error | undefined {
  if (!request.url.includes('?')) return undefined;
  return reservedParameterError(request.query) ?? queryOfBodyError(request) ?? conditionInQueryError(request, operation);
}

/** The If-Match header carries a REST condition; the input field of the same name is for /trpc and in-process callers. */
function conditionInQueryError(request: FastifyRequest, operation: CheckedOperation | undefined): Error | undefined {
  return operation?.meta.conditional?.ifMatch && Object.hasOwn(request.query as object, 'ifMatch')
    ? unknownParametersError(['ifMatch'], 'send the condition as the If-Match header')
    : undefined;
}
