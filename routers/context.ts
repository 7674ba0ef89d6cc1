/**
 * What every procedure is given, and the ports the routers need from whoever serves them:
 * how a bearer token is judged (`TokenVerifier`) and where plants are kept (`PlantStore`,
 * in plant-store.ts). server/ implements both; routers/ depends on these declarations only.
 */
import type { PlantStore } from './plant-store.js';

/** What the Authorization header said: no token, a token we do not accept, or a good one. */
export type AuthResult = { status: 'valid' } | { status: 'missing' } | { status: 'invalid' };

export type TokenVerifier = (authorization: string | undefined) => AuthResult;

export interface Context {
  store: PlantStore;
  auth: AuthResult;
  /**
   * Set by a procedure that answers one page of several: the parameters that ask for the next
   * page. Over REST they become the `Link: <...>; rel="next"` header; in process, nothing.
   */
  nextPage?: Record<string, string>;
}

export interface ContextDeps {
  store: PlantStore;
  verifyToken: TokenVerifier;
}

/** One context factory for every way in: tRPC over HTTP, REST, and in-process callers. */
export function createContextFactory({ store, verifyToken }: ContextDeps) {
  return (authorization: string | undefined): Context => ({ store, auth: verifyToken(authorization) });
}

/** The reason a protected procedure refused a call; the HTTP layer turns it into a challenge header. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(readonly auth: AuthResult) {
    super(
      auth.status === 'missing'
        ? 'missing bearer token: send the header Authorization: Bearer <token>'
        : 'invalid bearer token',
    );
  }
}
