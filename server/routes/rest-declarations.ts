import { procedureEntries, restOperations, type RestOperation } from '@plant-store/fast-path';
import type { AppRouter } from '../../routers/app.js';
import type { ProcedureMeta } from '../../routers/procedure-meta.js';

export interface DeclaredOperation {
  operation: RestOperation;
  meta: ProcedureMeta;
  /** The request body's media types, lower case (`application/json` unless declared otherwise). */
  mediaTypes: readonly string[];
  pathParameters: readonly string[];
}

export function declaredOperations(router: AppRouter): DeclaredOperation[] {
  const metas = new Map(procedureEntries<ProcedureMeta>(router).map(({ path, meta }) => [path, meta ?? {}]));
  return restOperations(router).map((operation) => {
    const meta = metas.get(operation.procedurePath) ?? {};
    const mediaTypes = (meta.openapi?.contentTypes ?? ['application/json']).map((type) => type.toLowerCase());
    const pathParameters = [...operation.path.matchAll(/\{(\w+)\}/g)].flatMap((match) => (match[1] ? [match[1]] : []));
    return { operation, meta, mediaTypes, pathParameters };
  });
}

/** The request headers the API's operations read, besides Authorization and Content-Type, for CORS. */
export function conditionalRequestHeaders(router: AppRouter): { allowed: string[]; exposed: string[] } {
  const declared = declaredOperations(router).map(({ meta }) => meta.conditional);
  return {
    allowed: [
      ...(declared.some((conditional) => conditional?.ifMatch) ? ['if-match'] : []),
      ...(declared.some((conditional) => conditional?.ifNoneMatch) ? ['if-none-match'] : []),
    ],
    exposed: declared.some((conditional) => conditional?.entityTag) ? ['etag'] : [],
  };
}
