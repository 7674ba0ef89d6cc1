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
    const subject = type === 'query' ? 'the input parameter' : type === 'mutation' ? 'the request body' : 'the input';
    return `${subject} is not valid JSON: ${error.cause.message}`;
  }
  return error.message;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  // A value can fail two checks that say the same thing (say, the int and the max of an id).
  return [...new Set(issues.map((failure) => failure.message))].join('; ');
}

export function internalErrorMessage(requestId: string | undefined): string {
  return requestId === undefined ? 'Internal server error' : `Internal server error (request id ${requestId})`;
}
