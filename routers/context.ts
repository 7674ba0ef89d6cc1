/** The ports are only declared here; the server implements them. */
import type { AuthResult, Principal, TokenVerifier } from './auth.js';
import type { ConditionHeaders } from './entity-tags.js';
import type { PlantStore } from './plant-store.js';

export interface Context {
  store: PlantStore;
  /** In process, a caller may give a verdict of its own. */
  auth: AuthResult | Promise<AuthResult>;
  principal?: Principal | undefined;
  /** Over REST it becomes the `Link: <...>; rel="next"` header. */
  nextPage?: Record<string, string>;
  conditions?: RequestConditions | undefined;
  /** The tag of the plant the call answered: the `ETag` header over HTTP; in process, read here. */
  entityTag?: string;
  /** Over HTTP, the request's id: an unexpected failure's message names it, as its log line does. */
  requestId?: string | undefined;
}

export interface RequestConditions extends ConditionHeaders {
  /** A GET or HEAD: the one kind of request a 304 answers. */
  read: boolean;
}

export interface ContextDeps {
  store: PlantStore;
  verifyToken: TokenVerifier;
}

/** Synchronous: a token that needs verifying leaves a promise that only the protected middleware waits for. */
export function createContextFactory({ store, verifyToken }: ContextDeps) {
  return (authorization: string | undefined, conditions?: RequestConditions, requestId?: string): Context => ({
    store,
    auth: verifyToken(authorization),
    principal: undefined,
    conditions,
    requestId,
  });
}
