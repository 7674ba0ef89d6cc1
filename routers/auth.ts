/**
 * The auth port: who may call (`Principal`), what an Authorization header is worth
 * (`AuthResult`, judged by a `TokenVerifier` that server/ implements), and why a call is refused
 * (`AuthError`). Nothing here knows how tokens are checked: static tokens and JWT access tokens
 * both answer an `AuthResult`.
 */

/** What an operation may need, named as an identity provider grants it in a token's `scope`. */
export const SCOPES = ['plants:read', 'plants:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who calls, and what they may do. */
export interface Principal {
  /** The JWT's `sub`, or a static token's configured name: what the request's log line shows. */
  readonly name: string;
  /** The scopes granted; a static token has them all. */
  readonly scopes: ReadonlySet<string>;
}

/**
 * What the Authorization header is worth: a principal, no token, a token refused (with the reason
 * in words a client may read: never the token itself), or no way to tell yet because the keys
 * that check it cannot be fetched (`retryAfterS`: when to try again).
 */
export type AuthResult =
  | { readonly status: 'valid'; readonly principal: Principal }
  | { readonly status: 'missing' }
  | { readonly status: 'invalid'; readonly reason: string }
  | { readonly status: 'unavailable'; readonly retryAfterS: number };

/**
 * Judges an Authorization header. A value when it can tell at once (a static token, a JWT already
 * verified), a promise when it must verify a signature or fetch keys first. The promise never
 * rejects: every failure is an `AuthResult`.
 */
export type TokenVerifier = (authorization: string | undefined) => AuthResult | Promise<AuthResult>;

/** Why a protected procedure refused a call: the header's own verdict, or a principal without the scope. */
export type AuthRefusal = Exclude<AuthResult, { status: 'valid' }> | { readonly status: 'forbidden'; readonly scope: Scope };

/** The refusal, carried as a TRPCError's cause; the HTTP layer turns it into a status and headers. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(readonly refusal: AuthRefusal) {
    super(messageOf(refusal));
  }
}

/**
 * The principal a call runs as, when `auth` admits it to an operation that needs `scope`; else
 * throws the AuthError that says why. A protected operation that declares no scope admits no
 * one (an internal error, logged): forgetting to declare one fails closed.
 */
export function admit(auth: AuthResult, scope: Scope | undefined): Principal {
  if (auth.status !== 'valid') throw new AuthError(auth);
  if (scope === undefined) throw new Error('this protected procedure declares no scope in its meta');
  if (!auth.principal.scopes.has(scope)) throw new AuthError({ status: 'forbidden', scope });
  return auth.principal;
}

function messageOf(refusal: AuthRefusal): string {
  switch (refusal.status) {
    case 'missing':
      return 'missing bearer token: send the header Authorization: Bearer <token>';
    case 'invalid':
      return `invalid bearer token: ${refusal.reason}`;
    case 'forbidden':
      return `insufficient scope: this operation needs the scope ${refusal.scope}, which the token does not grant`;
    case 'unavailable':
      return "the identity provider's signing keys cannot be fetched, so the token cannot be checked: try again shortly";
  }
}
