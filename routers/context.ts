/**
 * What every procedure is given, and the ports the routers need from whoever serves them:
 * how a bearer token is judged (`TokenVerifier`, in auth.ts) and where plants are kept
 * (`PlantStore`, in plant-store.ts). server/ implements both; routers/ depends on these
 * declarations only.
 */
import type { AuthResult, Principal, TokenVerifier } from './auth.js';
import type { PlantStore } from './plant-store.js';

export interface Context {
  store: PlantStore;
  /**
   * The Authorization header's verdict: a value, or a promise while a JWT is verified. In process,
   * a caller may also give a verdict of its own, `{ status: 'valid', principal }`.
   */
  auth: AuthResult | Promise<AuthResult>;
  /** Who calls, with their scopes: set by `protectedProcedure` once `auth` holds a valid token. */
  principal?: Principal | undefined;
  /**
   * Set by a procedure that answers one page of several: the parameters that ask for the next
   * page. Over REST they become the `Link: <...>; rel="next"` header; in process, nothing.
   */
  nextPage?: Record<string, string>;
  /** The request's conditional headers, as sent: `If-Match`, and `If-None-Match` on a read. */
  conditions?: RequestConditions | undefined;
  /** Set by a procedure that answers one plant: its entity tag, which REST answers as `ETag`. */
  entityTag?: string;
}

export interface RequestConditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

export interface ContextDeps {
  store: PlantStore;
  verifyToken: TokenVerifier;
}

/**
 * One context factory for every way in: tRPC over HTTP, REST, and in-process callers. It stays
 * synchronous: a token that needs verifying leaves a promise in `auth`, which only the protected
 * procedure's middleware waits for.
 */
export function createContextFactory({ store, verifyToken }: ContextDeps) {
  return (authorization: string | undefined, conditions?: RequestConditions): Context => ({
    store,
    auth: verifyToken(authorization),
    principal: undefined,
    conditions,
  });
}
