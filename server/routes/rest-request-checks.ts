import type { FastifyRequest } from 'fastify';
import { httpError } from '../errors/http-error.js';
import { reservedParameterError, unknownParametersError } from '../http/reserved-query-names.js';
import { hasBody } from '../http/request-refusals.js';
import type { DeclaredOperation } from './rest-declarations.js';

// What a REST request must be before trpc-to-openapi reads it: its body an object of a media type its operation takes,
// no key the path or If-Match gives, and a query the operation reads.

export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** On an operation's own route: the body's checks below, with the operation known. */
export function bodyError(request: FastifyRequest, operation: DeclaredOperation, otherMediaTypes: readonly string[]): Error | undefined {
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
function checkedBodyError(request: FastifyRequest, operation: DeclaredOperation, mediaType: string | undefined): Error | undefined {
  // Its parser has already refused it where the operation does not declare it.
  if (mediaType !== undefined) request.headers['content-type'] = 'application/json';
  const body = request.body as Record<string, unknown>;
  const fromPath = operation.pathParameters.find((name) => Object.hasOwn(body, name));
  if (fromPath !== undefined)
    return httpError(400, `the body must not hold ${JSON.stringify(fromPath)}: the path gives it, and it never changes`);
  if (operation.meta.conditional?.ifMatch && Object.hasOwn(body, 'ifMatch'))
    return httpError(400, 'unknown field "ifMatch": send the condition as the If-Match header');
  return undefined;
}

const DELETE_TAKES_NO_BODY = 'a DELETE takes no body: send the condition as the If-Match header';

/** A DELETE reads no body: a condition written there would be dropped, and the plant deleted unconditionally. */
export function deleteBodyError({ method, body }: FastifyRequest): Error | undefined {
  if (method !== 'DELETE' || body === undefined || (isObjectBody(body) && Object.keys(body as object).length === 0)) return undefined;
  return httpError(400, DELETE_TAKES_NO_BODY);
}

/**
 * A DELETE's body of another media type than JSON, refused unread as a JSON one is: a 415 naming a media type would send
 * the client on to that refusal. None at all (`Content-Length: 0`) is no body, whatever Content-Type says.
 */
export function deleteBodyRefusal({ headers }: FastifyRequest): Error | undefined {
  return hasBody(headers) ? httpError(400, DELETE_TAKES_NO_BODY) : undefined;
}

/** A Content-Type that is no media type, on a DELETE with no body, which Fastify refuses before any parser could let it by. */
export const notAMediaTypeOnDelete = () =>
  httpError(400, 'the Content-Type header is not a media type: a DELETE takes no body, so send none');

/** On the catch-all: the body's checks of the operation its URL names, if any; no body is refused where none serves it. */
export function anyBodyError(
  request: FastifyRequest,
  operation: DeclaredOperation | undefined,
  otherMediaTypes: readonly string[],
): Error | undefined {
  if (!BODY_METHODS.has(request.method)) return undefined;
  const mediaType = otherMediaType(request, otherMediaTypes);
  if (!isObjectBody(request.body)) {
    return request.body !== undefined || operation !== undefined ? httpError(400, 'the request body must be a JSON object') : undefined;
  }
  if (operation === undefined || !(mediaType !== undefined || operation.checksBody)) return undefined;
  return checkedBodyError(request, operation, mediaType);
}

/** RFC 5789 section 2.2: a PATCH refused for its media type says which it takes in `Accept-Patch`. */
export function unsupportedMediaType(mediaTypes: readonly string[], method: string): Error {
  // A JSON Patch (RFC 6902) is JSON too: what is wanted is named.
  const wanted = mediaTypes.includes('application/merge-patch+json') ? 'a JSON merge patch (RFC 7396)' : 'JSON';
  const message = `the body must be ${wanted}: send it with Content-Type: ${mediaTypes.join(' or ')}`;
  return httpError(415, message, method === 'PATCH' ? { 'accept-patch': mediaTypes.join(', ') } : undefined);
}

/** Any parameter at all, of an operation that reads none. */
function anyParameterError(request: FastifyRequest): Error | undefined {
  const names = Object.keys(request.query as Record<string, unknown>);
  return names.length === 0 ? undefined : unknownParametersError(names, 'this operation takes no query parameters');
}

/** An operation with a body takes nothing from the query: a parameter there would be silently dropped. */
function queryOfBodyError(request: FastifyRequest): Error | undefined {
  return BODY_METHODS.has(request.method) ? anyParameterError(request) : undefined;
}

/** The query's checks, for the operation served (undefined: none, or not known). */
export function queryError(request: FastifyRequest, operation: DeclaredOperation | undefined): Error | undefined {
  if (!request.url.includes('?')) return undefined;
  return (
    reservedParameterError(request.query) ??
    queryOfBodyError(request) ??
    pathParameterInQueryError(request, operation) ??
    conditionInQueryError(request, operation) ??
    unreadQueryError(request, operation)
  );
}

/** An operation whose input the path and headers give: its procedure's own words would name the path's fields. */
function unreadQueryError(request: FastifyRequest, operation: DeclaredOperation | undefined): Error | undefined {
  return operation?.queryParameters?.length === 0 ? anyParameterError(request) : undefined;
}

/** trpc-to-openapi lets the path's value win, so the query's would be silently ignored. */
function pathParameterInQueryError(request: FastifyRequest, operation: DeclaredOperation | undefined): Error | undefined {
  const named = operation?.pathParameters.filter((name) => Object.hasOwn(request.query as object, name)) ?? [];
  return named.length === 0 ? undefined : unknownParametersError(named, 'the path gives it');
}

/** The If-Match header carries a REST condition; the input field of the same name is for /trpc and in-process callers. */
function conditionInQueryError(request: FastifyRequest, operation: DeclaredOperation | undefined): Error | undefined {
  return operation?.meta.conditional?.ifMatch && Object.hasOwn(request.query as object, 'ifMatch')
    ? unknownParametersError(['ifMatch'], 'send the condition as the If-Match header')
    : undefined;
}
