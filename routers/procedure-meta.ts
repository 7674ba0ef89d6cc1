import type { OperationExample, RequestExample } from '../schemas/examples.js';
import type { Scope } from './auth.js';

/**
 * What a procedure declares besides its input and output. The REST part is the shape
 * trpc-to-openapi reads (its `OpenApiMeta`, minus the header schemas no procedure uses), written
 * here so that `AppRouter`'s published types reference nothing of trpc-to-openapi, whose
 * declarations pull in the types of every web framework it adapts to.
 */
export type ProcedureMeta = {
  /** The scope a token must grant: read by the protected procedure's middleware and the OpenAPI document. */
  scope?: Scope;
  openapi?: RestOperationMeta;
  /** Every answer of a REST operation with its example: the OpenAPI document shows them, the tests send them. */
  answers?: OperationAnswers;
  /** The conditional requests a REST operation honours, and whether its answers carry `ETag`. */
  conditional?: ConditionalRequests;
};

/**
 * What a REST operation declares of RFC 9110's conditional requests: the REST layer reads the
 * headers, lets browsers send and read them (CORS), answers `ETag` and 304, and documents them.
 */
export interface ConditionalRequests {
  /** Its successful answers carry the plant's `ETag` (`ctx.entityTag`). */
  entityTag?: true;
  /** It takes `If-Match`; over /trpc and in process the input key `ifMatch` carries it, which a REST body may not. */
  ifMatch?: true;
  /** It answers 304 Not Modified when `If-None-Match` matches (a read): what that means, and a request that gets it. */
  ifNoneMatch?: Answer;
}

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

/** The failures an operation may document, each answered with the `Error` body. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 500 | 503;

/** One documented answer: what it means, and a request that gets it. */
export interface Answer {
  description: string;
  example: OperationExample;
}

export interface OperationAnswers {
  success: Answer & { status: 200 | 204; moreRequests?: Record<string, RequestExample> };
  errors: { [Status in ErrorStatus]?: Answer };
}

/** Everything a REST operation declares, in its own procedure's file. */
export interface RestOperationDeclaration extends OperationAnswers {
  method: RestOperationMeta['method'];
  path: `/${string}`;
  operationId: string;
  summary: string;
  description: string;
  scope: Scope;
  /** The request body's media types, when not only `application/json`. */
  contentTypes?: string[];
  conditional?: ConditionalRequests;
}

/**
 * A procedure's meta from its declaration: trpc-to-openapi's part (the answers' descriptions)
 * follows from the answers, so an answer without a description or an example fails the type check.
 */
export function restOperation({
  method,
  path,
  operationId,
  summary,
  description,
  scope,
  success,
  errors,
  contentTypes,
  conditional,
}: RestOperationDeclaration): ProcedureMeta {
  const errorResponses = Object.fromEntries(Object.entries(errors).map(([status, answer]) => [status, answer.description]));
  return {
    scope,
    openapi: {
      method,
      path,
      operationId,
      summary,
      description,
      tags: ['plants'],
      successDescription: success.description,
      errorResponses,
      ...(contentTypes && { contentTypes }),
    },
    answers: { success, errors },
    ...(conditional && { conditional }),
  };
}
