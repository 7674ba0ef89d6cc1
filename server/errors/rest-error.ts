import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { AuthError } from '../../routers/trpc.js';
import { publicMessage } from '../../routers/error-messages.js';
import { bearerChallenge } from '../auth/bearer-tokens.js';

/** How one failure is answered, whoever raised it: status, a message for people, extra headers. */
export interface ErrorReply {
  statusCode: number;
  message: string;
  headers: Record<string, string>;
}

/** What an answer says of its request; a FastifyRequest is one. */
interface RequestInfo {
  id: string;
  method: string;
  url: string;
}

/** Fastify's own 4xx errors carry a status and an FST_ code; their texts get a clearer one here. */
interface FastifyClientError {
  statusCode: number;
  code?: string;
  message: string;
}

export function toErrorReply(error: unknown, request: RequestInfo, bodyLimit: number): ErrorReply {
  if (error instanceof TRPCError) return fromTRPCError(error, request);
  if (isClientError(error)) {
    return { statusCode: error.statusCode, message: fastifyMessage(error, bodyLimit), headers: {} };
  }
  return internalError(request);
}

export function notFoundReply(request: Pick<RequestInfo, 'method' | 'url'>): ErrorReply {
  return { statusCode: 404, message: `no route for ${request.method} ${request.url}`, headers: {} };
}

/** A server-side failure the service did not foresee: logged in full, answered generically. 503 is foreseen. */
export function isUnexpected(error: TRPCError): boolean {
  return getHTTPStatusCodeFromError(error) >= 500 && error.code !== 'SERVICE_UNAVAILABLE';
}

function fromTRPCError(error: TRPCError, request: RequestInfo): ErrorReply {
  if (isUnexpected(error)) return internalError(request);
  const statusCode = getHTTPStatusCodeFromError(error);
  if (error.code === 'NOT_FOUND') return notFoundReply(request);
  const headers: Record<string, string> = error.cause instanceof AuthError ? { 'www-authenticate': bearerChallenge(error.cause.auth) } : {};
  if (error.code === 'SERVICE_UNAVAILABLE') headers['retry-after'] = '1';
  return { statusCode, message: publicMessage(error), headers };
}

function internalError(request: RequestInfo): ErrorReply {
  return { statusCode: 500, message: `Internal server error (request id ${request.id})`, headers: {} };
}

function isClientError(error: unknown): error is FastifyClientError {
  if (!(error instanceof Error)) return false;
  const { statusCode } = error as Partial<FastifyClientError>;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

function fastifyMessage(error: FastifyClientError, bodyLimit: number): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'the body must be JSON: send it with Content-Type: application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `the request body is larger than the limit of ${bodyLimit} bytes`;
    default:
      return error.message;
  }
}
