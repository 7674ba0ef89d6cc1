import type { OperationExample, RequestExample } from '../schemas/examples.js';
import type { Scope } from './auth.js';

/** Mirrors trpc-to-openapi's `OpenApiMeta` so that `AppRouter`'s published types pull in none of its framework types. */
export type ProcedureMeta = {
  scope?: Scope;
  openapi?: RestOperationMeta;
  answers?: OperationAnswers;
  conditional?: ConditionalRequests;
};

export interface ConditionalRequests {
  entityTag?: true;
  /** If-Match: 412 unless it names the plant's tag. A change also takes it as the input key `ifMatch`, which a REST body may not. */
  ifMatch?: true;
  /** If-None-Match: a read answers 304 while it names the plant's tag (this answer); a change (`true`) is refused with 412 then. */
  ifNoneMatch?: Answer | true;
}

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

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 500 | 503;
/** What every operation can answer: its input refused, no or a bad token, a scope lacking, a failure, MongoDB away. */
type EveryOperationFails = 400 | 401 | 403 | 500 | 503;

export interface Answer {
  description: string;
  example: OperationExample;
}

export interface OperationAnswers {
  success: Answer & { status: 200 | 204; moreRequests?: Record<string, RequestExample> };
  errors: { [Status in EveryOperationFails]: Answer } & { [Status in Exclude<ErrorStatus, EveryOperationFails>]?: Answer };
}

type Method = RestOperationMeta['method'];
/** A request of any method but GET may bring a body, refused 413 over the limit before any operation runs. Not distributed: a method
 * typed only as some method may be one that takes a body. */
type BodyAnswers<M extends Method> = [M] extends ['GET'] ? unknown : { 413: Answer };

export interface RestOperationDeclaration<M extends Method = Method> extends OperationAnswers {
  method: M;
  errors: OperationAnswers['errors'] & BodyAnswers<M>;
  path: `/${string}`;
  operationId: string;
  summary: string;
  description: string;
  scope: Scope;
  contentTypes?: string[];
  conditional?: ConditionalRequests;
}

/** An answer without a description or an example fails the type check, as does an answer the method can get left out. */
export function restOperation<M extends Method>({
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
}: RestOperationDeclaration<M>): ProcedureMeta {
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
