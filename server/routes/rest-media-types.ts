import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { addJsonBodyParser } from '../http/int64-edge.js';
import type { DeclaredOperation } from './rest-declarations.js';
import { deleteBodyRefusal, notAMediaTypeOnDelete, unsupportedMediaType } from './rest-request-checks.js';

/** Media types some operation declares beside JSON (a merge patch). */
export function otherMediaTypesOf(declared: readonly DeclaredOperation[]): string[] {
  return [...new Set(declared.flatMap(({ mediaTypes }) => mediaTypes))].filter((type) => type !== 'application/json');
}

/**
 * The REST context's body parsers. JSON only, as Fastify's default text/plain parser would let text reach the procedure;
 * each other declared media type read as JSON where the operation takes it. Any other media type, or one the operation
 * does not declare: a 415 naming those it takes, before the body is read; a DELETE's body of any of them gets the 400 of
 * a DELETE with a body, and none at all gets by.
 */
export function registerMediaTypes(
  rest: FastifyInstance,
  declared: readonly DeclaredOperation[],
  otherMediaTypes: readonly string[],
  operationOf: (request: FastifyRequest) => DeclaredOperation | undefined,
): void {
  rest.removeContentTypeParser('text/plain');
  const refusedMediaType = (request: FastifyRequest): Error | undefined =>
    request.method === 'DELETE'
      ? deleteBodyRefusal(request)
      : unsupportedMediaType(operationOf(request)?.mediaTypes ?? ['application/json'], request.method);
  for (const mediaType of otherMediaTypes) {
    // Where every operation of the method takes it (a merge patch on PATCH), no operation is looked up per request.
    const takenByAll = new Set(
      declared
        .map(({ operation }) => operation.method)
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
}
