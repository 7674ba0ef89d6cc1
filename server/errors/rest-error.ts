import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { AuthError } from '../../routers/auth.js';
import { internalErrorMessage, publicMessage } from '../../routers/error-messages.js';
import { ChangeQueueFullError } from '../../routers/plant-store.js';
import type { ErrorBody } from '../../schemas/error.js';
import { refusalHeaders } from '../auth/challenge.js';
import { answeredMethod } from '../methods/answered-method.js';
import { TARGET_FORM_MESSAGE } from './http-error.js';

/** The one place that turns any failure into the REST answer, so every failure has the same shape. */
export interface RestError {
  statusCode: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

export interface RequestInfo {
  id: string;
  method: string;
  url: string;
  /** The route's options; Fastify's body limit words the 413 message. */
  routeOptions?: { bodyLimit?: number };
}

/** An error that carries its HTTP status: Fastify's own (FST_ codes) and the service's HTTP-level refusals. */
interface HttpStatusError {
  statusCode: number;
  code?: string;
  message: string;
  /** Headers the refusal needs, as a 415's `Accept-Patch`. */
  headers?: Record<string, string>;
}

/** What a path serves, for 405 rather than 404: its methods, and the media types its PATCH takes. */
export interface ServedMethods {
  methods: readonly string[];
  patchMediaTypes: readonly string[];
}

export type MethodsAt = (url: string) => ServedMethods;

/** No operation serves the request's method at its URL: a 404, or a 405 where the path serves other methods. */
export class NoRouteError extends Error {
  override name = 'NoRouteError';
}

export function toRestError(error: unknown, request: RequestInfo, methodsAt?: MethodsAt): RestError {
  if (error instanceof NoRouteError) return notFound(request, methodsAt?.(request.url));
  if (error instanceof TRPCError) return fromTRPCError(error, request, methodsAt);
  if (isRefusal(error)) return restError(error.statusCode, clientMessage(error, request), { ...error.headers });
  return internalError(request);
}

/**
 * A HEAD is worded as the GET it stands for, so that both answers have the same length. A path that takes PATCH says
 * in `Accept-Patch` how (RFC 5789 section 3.1), an OPTIONS's 405 included.
 */
function notFound(request: Pick<RequestInfo, 'method' | 'url'>, served?: ServedMethods): RestError {
  const method = answeredMethod(request.method);
  const allowed = served?.methods ?? [];
  if (allowed.length === 0 || allowed.includes(method)) return restError(404, `no route for ${method} ${request.url}`);
  const allow = allowed.join(', ');
  const patchMediaTypes = served?.patchMediaTypes ?? [];
  return restError(405, `${method} is not allowed on ${request.url.split('?', 1)[0] ?? ''}: it answers ${allow}`, {
    allow,
    ...(patchMediaTypes.length > 0 && { 'accept-patch': patchMediaTypes.join(', ') }),
  });
}

/** A server-side failure the service did not foresee: logged in full, answered generically. 503 is foreseen. */
export function isUnexpected(error: TRPCError): boolean {
  return getHTTPStatusCodeFromError(error) >= 500 && error.code !== 'SERVICE_UNAVAILABLE';
}

/** The headers a refusal carries over REST and /trpc alike: the auth challenge, or when to try again. */
export function errorHeaders(error: TRPCError): Record<string, string> {
  const headers = error.cause instanceof AuthError ? refusalHeaders(error.cause.refusal) : {};
  if (error.cause instanceof ChangeQueueFullError) headers['retry-after'] = String(error.cause.retryAfterS);
  if (error.code === 'SERVICE_UNAVAILABLE') headers['retry-after'] ??= '1';
  return headers;
}

function fromTRPCError(error: TRPCError, request: RequestInfo, methodsAt: MethodsAt | undefined): RestError {
  if (isUnexpected(error)) return internalError(request);
  // trpc-to-openapi's own NOT_FOUND has no cause: a URL an operation's route took that its matching refuses (`/plants/`
  // on `/plants/:id`). A procedure's says what is missing.
  if (error.code === 'NOT_FOUND' && error.cause === undefined) return notFound(request, methodsAt?.(request.url));
  return restError(getHTTPStatusCodeFromError(error), publicMessage(error), errorHeaders(error));
}

function internalError(request: RequestInfo): RestError {
  return restError(500, internalErrorMessage(request.id));
}

function restError(statusCode: number, message: string, headers: Record<string, string> = {}): RestError {
  return { statusCode, body: { error: statusCode, message }, headers };
}

/** A 4xx, or a 501 or 505 for what nothing here implements: a refusal of what the client sent, not a failure. */
export function isRefusalStatus(statusCode: number): boolean {
  return (statusCode >= 400 && statusCode < 500) || statusCode === 501 || statusCode === 505;
}

function isRefusal(error: unknown): error is HttpStatusError {
  if (!(error instanceof Error)) return false;
  const { statusCode } = error as Partial<HttpStatusError>;
  return typeof statusCode === 'number' && isRefusalStatus(statusCode);
}

/** Fastify's texts for its own 4xx errors get clearer ones; the service's own pass as they are. */
function clientMessage(error: HttpStatusError, request: RequestInfo): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'the body must be JSON: send it with Content-Type: application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `the request body is larger than the limit of ${request.routeOptions?.bodyLimit ?? 'the configured'} bytes`;
    case 'FST_ERR_BAD_URL':
      return request.url.startsWith('/')
        ? 'the request path is not valid: each % must start an escape (%XX) of UTF-8 bytes'
        : TARGET_FORM_MESSAGE;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'a segment of the request path is too long';
    default:
      return error.message;
  }
}
