import type { Scope } from './auth.js';

/**
 * What a procedure declares besides its input and output: how it is served as REST, and for a
 * protected procedure the scope a token must grant to call it (read by the protected
 * procedure's middleware and by the OpenAPI document). The REST part is the
 * shape trpc-to-openapi reads (its `OpenApiMeta`, minus the header schemas no procedure uses),
 * written here so that the router's published types (`AppRouter`) reference nothing of
 * trpc-to-openapi, whose declarations pull in the types of every web framework it adapts to:
 * a client app would need them all, or `skipLibCheck`. tests/trpc/procedure-meta.test.ts checks
 * that trpc-to-openapi still reads this shape as its own.
 */
export type ProcedureMeta = {
  openapi?: RestOperationMeta;
  scope?: Scope;
};

/** A procedure's REST operation: trpc-to-openapi mounts it and documents it in the OpenAPI document. */
export type RestOperationMeta = {
  enabled?: boolean;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: `/${string}`;
  operationId?: string;
  summary?: string;
  description?: string;
  protect?: boolean;
  tags?: string[];
  contentTypes?: string[];
  deprecated?: boolean;
  successDescription?: string;
  errorResponses?: number[] | Record<number, string>;
};
