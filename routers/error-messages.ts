import type { TRPCError, TRPCProcedureType as ProcedureType } from '@trpc/server';
import { z } from 'zod';

/**
 * Unexpected errors say nothing of their internals: those go to the log, under the request id named here. Input that is
 * not JSON is named where /trpc read it from, which the procedure's type tells: a query's from the URL, a mutation's from
 * the body (a query POSTed, or a mutation sent as GET, is refused before its input is read).
 */
export function publicMessage(error: TRPCError, requestId?: string, type?: ProcedureType | 'unknown'): string {
  if (error.code === 'INTERNAL_SERVER_ERROR') return internalErrorMessage(requestId);
  if (error.cause instanceof z.ZodError) return describeIssues(error.cause.issues);
  if (error.code === 'BAD_REQUEST' && error.cause instanceof SyntaxError) {
    const subject = type === 'query' ? JSON_SUBJECTS.query : type === 'mutation' ? JSON_SUBJECTS.body : 'the input';
    return notJsonMessage(subject, error.cause);
  }
  return error.message;
}

/** Where a request's JSON text came from, as its refusals name it: a body, or /trpc's `input` query parameter. */
export const JSON_SUBJECTS = { body: 'the request body', query: 'the input parameter' } as const;

/** A parser's own refusal, said of the text's source. */
export function notJsonMessage(subject: string, cause: unknown): string {
  return `${subject} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  // A value can fail two checks that say the same thing (say, the int and the max of an id).
  return [...new Set(issues.map((failure) => failure.message))].join('; ');
}

export function internalErrorMessage(requestId: string | undefined): string {
  return requestId === undefined ? 'Internal server error' : `Internal server error (request id ${requestId})`;
}
