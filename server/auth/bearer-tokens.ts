import { hash, timingSafeEqual } from 'node:crypto';
import { SCOPES, type AuthResult, type Principal } from '../../routers/auth.js';

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;
const BEARER_SCHEME = /^Bearer(?:[ \t]|$)/i;

export interface NamedToken {
  name: string;
  token: string;
}

/** A static token given by the hex SHA-256 of its text (API_TOKEN_HASHES), so the secret is not in the environment. */
export interface NamedTokenHash {
  name: string;
  sha256: string;
}

export const MISSING: AuthResult = { status: 'missing' };
const OTHER_SCHEME: AuthResult = { status: 'missing', otherScheme: true };
export const NOT_BEARER: AuthResult = { status: 'invalid', reason: 'the Authorization header must be Bearer and one token' };
export const NOT_ACCEPTED: AuthResult = { status: 'invalid', reason: 'it is not a token this service accepts' };

/**
 * The token of `Authorization: Bearer <token>`; else the verdict on a header that has none. Another scheme carries no
 * bearer token at all, so it is answered as none, without an error code (RFC 6750 section 3.1).
 */
export function bearerToken(authorization: string | undefined): string | AuthResult {
  if (authorization === undefined || authorization.trim() === '') return MISSING;
  const token = BEARER.exec(authorization)?.[1];
  if (token !== undefined) return token;
  return BEARER_SCHEME.test(authorization) ? NOT_BEARER : OTHER_SCHEME;
}

/** Every scope: a static token may do everything. */
const ALL_SCOPES: ReadonlySet<string> = new Set(SCOPES);

/** Compared as SHA-256 digests with `timingSafeEqual`, against every token on every call, so timing reveals nothing. */
export class StaticTokens {
  private readonly accepted: { digest: Buffer; verdict: AuthResult & { status: 'valid' } }[];

  constructor(tokens: readonly (string | NamedToken)[], hashes: readonly NamedTokenHash[] = []) {
    const principal = (name: string): AuthResult & { status: 'valid' } => ({
      status: 'valid',
      principal: { name, scopes: ALL_SCOPES } satisfies Principal,
    });
    this.accepted = [
      ...tokens
        .map((token, index) => (typeof token === 'string' ? { name: `token ${index + 1}`, token } : token))
        .map(({ name, token }) => ({ digest: digest(token), verdict: principal(name) })),
      ...hashes.map(({ name, sha256 }) => ({ digest: Buffer.from(sha256, 'hex'), verdict: principal(name) })),
    ];
  }

  get size(): number {
    return this.accepted.length;
  }

  match(token: string): (AuthResult & { status: 'valid' }) | undefined {
    const candidate = digest(token);
    let matched: (AuthResult & { status: 'valid' }) | undefined;
    for (const { digest: known, verdict } of this.accepted) if (timingSafeEqual(known, candidate)) matched = verdict;
    return matched;
  }
}

export function createTokenVerifier(
  tokens: readonly (string | NamedToken)[],
  hashes: readonly NamedTokenHash[] = [],
): (authorization: string | undefined) => AuthResult {
  const statics = new StaticTokens(tokens, hashes);
  return (authorization) => {
    const token = bearerToken(authorization);
    return typeof token === 'string' ? (statics.match(token) ?? NOT_ACCEPTED) : token;
  };
}

/** One-shot hashing: no Hash object per request, unlike createHash. */
function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}
