import type { FastifyRequest, preParsingHookHandler } from 'fastify';
import { AuthError, SCOPES, tokenRefusal, type AuthResult, type Scope } from '../../routers/auth.js';
import type { Context } from '../../routers/context.js';
import { fromDomainError } from '../../routers/domain-errors.js';

/** The scope the request's one operation needs; undefined where none is known before the body (a batch, no operation). */
export type ScopeOf = (request: FastifyRequest) => Scope | undefined;

/**
 * A `preParsing` hook: a request its token does not admit gets the call's 401 (or 503 while keys cannot be fetched),
 * and one its token grants no scope for gets the 403, before its body is read, so a stranger learns nothing from a 400,
 * 413 or 415. The context made here is the call's own; the procedure judges again what is not known here.
 */
export function judgeTokenBeforeBody(createContext: (request: FastifyRequest) => Context, scopeOf: ScopeOf): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    const context = createContext(request);
    const { auth } = context;
    if (!(auth instanceof Promise)) {
      done(refusal(request, context, auth, scopeOf), payload);
      return;
    }
    auth.then(
      (result) => {
        done(refusal(request, context, result, scopeOf), payload);
      },
      (error: unknown) => {
        done(fromDomainError(error) ?? (error instanceof Error ? error : new Error(String(error))));
      },
    );
  };
}

function refusal(request: FastifyRequest, context: Context, auth: AuthResult, scopeOf: ScopeOf): Error | null {
  const refused = tokenRefusal(auth);
  if (refused) return fromDomainError(refused) ?? null;
  if (auth.status !== 'valid' || SCOPES.every((scope) => auth.principal.scopes.has(scope))) return null;
  const scope = scopeOf(request);
  if (scope === undefined || auth.principal.scopes.has(scope)) return null;
  // Named, as the procedure would name it: the log line says who was refused.
  context.principal = auth.principal;
  return fromDomainError(new AuthError({ status: 'forbidden', scope })) ?? null;
}
