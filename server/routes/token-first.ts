import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { grantsEveryScope, refusalOf, type AuthResult, type Scope } from '../../routers/auth.js';
import type { Context } from '../../routers/context.js';
import { fromDomainError } from '../../routers/domain-errors.js';

/** The scope the request's one operation needs; undefined where none is known before the body (a batch, no operation). */
export type ScopeOf = (request: FastifyRequest) => Scope | undefined;

/** A refusal known from the method, URL and headers alone. */
export type RequestCheck = (request: FastifyRequest) => Error | null | undefined;

export interface TokenChecks {
  /** Answered before the token is judged: a path no operation serves is a 404 for anyone. */
  before?: RequestCheck;
  /** Answered only to a caller the token admits. */
  after?: RequestCheck;
}

/**
 * A route's one `onRequest` hook: a request its token does not admit gets the call's 401 (or 503 while keys cannot be
 * fetched), and one its token grants no scope for gets the 403, before its body is read, so a stranger learns nothing
 * from a 400, 413 or 415. The route's other checks run in the same hook, in their order. The context made here is the
 * call's own; the procedure judges again what is not known here.
 */
export function judgeTokenBeforeBody(
  createContext: (request: FastifyRequest) => Context,
  scopeOf: ScopeOf,
  { before, after }: TokenChecks = {},
): onRequestHookHandler {
  const verdict = (request: FastifyRequest, context: Context, auth: AuthResult) =>
    refusal(request, context, auth, scopeOf) ?? after?.(request) ?? undefined;
  return (request, _reply, done) => {
    const early = before?.(request);
    if (early) {
      done(early);
      return;
    }
    const context = createContext(request);
    const { auth } = context;
    if (!(auth instanceof Promise)) {
      done(verdict(request, context, auth));
      return;
    }
    auth.then(
      (result) => {
        done(verdict(request, context, result));
      },
      (error: unknown) => {
        done(fromDomainError(error) ?? (error instanceof Error ? error : new Error(String(error))));
      },
    );
  };
}

function refusal(request: FastifyRequest, context: Context, auth: AuthResult, scopeOf: ScopeOf): Error | undefined {
  // A token granting every scope needs no look at the operation; one whose scope is not known before the body (a
  // batch) is judged by the procedure alone.
  const scope = auth.status === 'valid' && !grantsEveryScope(auth) ? scopeOf(request) : undefined;
  if (auth.status === 'valid' && scope === undefined) return undefined;
  const refused = refusalOf(auth, scope);
  if (!refused) return undefined;
  // Named, as the procedure would name it: the log line says who was refused for want of a scope.
  if (auth.status === 'valid') context.principal = auth.principal;
  return fromDomainError(refused) ?? refused;
}
