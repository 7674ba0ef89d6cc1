import type { FastifyRequest, preParsingHookHandler } from 'fastify';
import { tokenRefusal, type AuthResult } from '../../routers/auth.js';
import type { Context } from '../../routers/context.js';
import { fromDomainError } from '../../routers/domain-errors.js';

/**
 * A `preParsing` hook: a request its token does not admit gets the call's 401 (or 503 while keys cannot be fetched)
 * before its body is read, so a stranger learns nothing from a 400, 413 or 415. The context made here is the call's
 * own; the scope is the procedure's to judge.
 */
export function judgeTokenBeforeBody(createContext: (request: FastifyRequest) => Context): preParsingHookHandler {
  return (request, _reply, payload, done) => {
    const { auth } = createContext(request);
    if (!(auth instanceof Promise)) {
      done(refusedToken(auth), payload);
      return;
    }
    auth.then(
      (result) => {
        done(refusedToken(result), payload);
      },
      (error: unknown) => {
        done(fromDomainError(error) ?? (error instanceof Error ? error : new Error(String(error))));
      },
    );
  };
}

function refusedToken(auth: AuthResult): Error | null {
  const refusal = tokenRefusal(auth);
  return (refusal && fromDomainError(refusal)) ?? null;
}
