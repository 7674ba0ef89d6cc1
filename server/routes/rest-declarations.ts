import { procedureEntries, restOperations, type RestOperation } from '@plant-store/fast-path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { ProcedureMeta } from '../../routers/procedure-meta.js';
import { answeredMethod } from '../methods/answered-method.js';

export interface DeclaredOperation {
  operation: RestOperation;
  meta: ProcedureMeta;
  /** The request body's media types, lower case (`application/json` unless declared otherwise). */
  mediaTypes: readonly string[];
  pathParameters: readonly string[];
  /** What its query may name; undefined where its input is not known field by field. */
  queryParameters: readonly string[] | undefined;
  /** Whether its body may hold a key the path or If-Match gives, which it must not. */
  checksBody: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The REST operation the request calls, once looked up (null: none). */
    restOperation: DeclaredOperation | null | undefined;
  }
}

export function declaredOperations(router: AppRouter): DeclaredOperation[] {
  const entries = new Map(procedureEntries<ProcedureMeta>(router).map((entry) => [entry.path, entry]));
  return restOperations(router).map((operation) => {
    const entry = entries.get(operation.procedurePath);
    const meta = entry?.meta ?? {};
    const mediaTypes = (meta.openapi?.contentTypes ?? ['application/json']).map((type) => type.toLowerCase());
    const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].flatMap((match) => (match[1] ? [match[1]] : []));
    // If-Match comes as a header over REST; its input field is for /trpc and in-process callers.
    const fromElsewhere = new Set([...pathParameters, ...(meta.conditional?.ifMatch ? ['ifMatch'] : [])]);
    const queryParameters = entry?.inputKeys?.filter((key) => !fromElsewhere.has(key));
    const checksBody = pathParameters.length > 0 || meta.conditional?.ifMatch === true;
    return { operation, meta, mediaTypes, pathParameters, queryParameters, checksBody };
  });
}

/** The first operation serving this method (a HEAD: GET) at this URL, as trpc-to-openapi tries them. */
export function operationAt<T extends { operation: RestOperation }>(entries: readonly T[], method: string, url: string): T | undefined {
  const answered = answeredMethod(method);
  return entries.find(({ operation }) => operation.method === answered && operation.matchesUrl(url));
}

/** The operation a request calls, looked up once; a context's routes that may serve any operation ask it. */
export function operationFinder(context: FastifyInstance, declared: readonly DeclaredOperation[]) {
  context.decorateRequest('restOperation', undefined);
  return (request: FastifyRequest): DeclaredOperation | undefined => {
    if (request.restOperation === undefined) request.restOperation = operationAt(declared, request.method, request.url) ?? null;
    return request.restOperation ?? undefined;
  };
}

/**
 * For CORS, the headers the API's operations read besides Authorization and Content-Type, and those their answers carry
 * besides the app's own: `ETag`, and a PATCH's 415 says in `Accept-Patch` what it takes.
 */
export function operationHeaders(router: AppRouter): { allowed: string[]; exposed: string[] } {
  const operations = declaredOperations(router);
  const declared = operations.map(({ meta }) => meta.conditional);
  return {
    allowed: [
      ...(declared.some((conditional) => conditional?.ifMatch) ? ['if-match'] : []),
      ...(declared.some((conditional) => conditional?.ifNoneMatch) ? ['if-none-match'] : []),
    ],
    exposed: [
      ...(declared.some((conditional) => conditional?.entityTag) ? ['etag'] : []),
      ...(operations.some(({ operation }) => operation.method === 'PATCH') ? ['accept-patch'] : []),
    ],
  };
}
