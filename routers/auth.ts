/** The auth port: nothing here knows how tokens are checked; static tokens and JWTs both answer an `AuthResult`. */

export const SCOPES = ['plants:read', 'plants:write'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  /** What the request's log line shows. */
  readonly name: string;
  /** The scopes granted; a static token has them all. */
  readonly scopes: ReadonlySet<string>;
}

/** A refusal's reason is for clients to read: it never holds the token itself. */
export type AuthResult =
  | { readonly status: 'valid'; readonly principal: Principal }
  | {
      readonly status: 'missing';
      /** The Authorization header holds something other than a bearer token (Basic credentials, say). */
      readonly otherScheme?: true;
    }
  | { readonly status: 'invalid'; readonly reason: string }
  | { readonly status: 'unavailable'; readonly retryAfterS: number };

/** A value when it can tell at once, else a promise that never rejects: every failure is an `AuthResult`. */
export type TokenVerifier = (authorization: string | undefined) => AuthResult | Promise<AuthResult>;

export type AuthRefusal = Exclude<AuthResult, { status: 'valid' }> | { readonly status: 'forbidden'; readonly scope: Scope };

/** The refusal, carried as a TRPCError's cause; the HTTP layer turns it into a status and headers. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(readonly refusal: AuthRefusal) {
    super(messageOf(refusal));
  }
}

/**
 * Why a verdict does not admit its caller to an operation needing `scope`; undefined when it does. An operation that
 * declares no scope admits no one: forgetting to declare one fails closed (an unexpected failure, not a refusal).
 */
export function refusalOf(auth: AuthResult, scope: Scope | undefined): Error | undefined {
  if (auth.status !== 'valid') return new AuthError(auth);
  if (scope === undefined) return new Error('this protected procedure declares no scope in its meta');
  return auth.principal.scopes.has(scope) ? undefined : new AuthError({ status: 'forbidden', scope });
}

/** Whether the token grants every scope, so that no operation needs looking up to admit it. */
export function grantsEveryScope(auth: AuthResult): boolean {
  return auth.status === 'valid' && SCOPES.every((scope) => auth.principal.scopes.has(scope));
}

function messageOf(refusal: AuthRefusal): string {
  switch (refusal.status) {
    case 'missing':
      return refusal.otherScheme
        ? 'missing bearer token: the Authorization header does not start with Bearer; send Authorization: Bearer <token>'
        : 'missing bearer token: send the header Authorization: Bearer <token>';
    case 'invalid':
      return `invalid bearer token: ${refusal.reason}`;
    case 'forbidden':
      return `insufficient scope: this operation needs the scope ${refusal.scope}, which the token does not grant`;
    case 'unavailable':
      return "the identity provider's signing keys cannot be fetched, so the token cannot be checked: try again shortly";
  }
}
