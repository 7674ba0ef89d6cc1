import { hash, timingSafeEqual } from 'node:crypto';
import type { AuthResult, TokenVerifier } from '../../routers/context.js';

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

/**
 * Checks `Authorization: Bearer <token>` against the accepted tokens.
 *
 * Tokens are compared as SHA-256 digests with `timingSafeEqual`, and every accepted token is
 * compared on every call, so the time taken tells nothing about how much of a token matched
 * or which token it was.
 */
export function createTokenVerifier(tokens: readonly string[]): TokenVerifier {
  const accepted = tokens.map(digest);
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '') return { status: 'missing' };
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) return { status: 'invalid' };
    const candidate = digest(token);
    let matched = false;
    for (const known of accepted) matched = timingSafeEqual(known, candidate) || matched;
    return matched ? { status: 'valid' } : { status: 'invalid' };
  };
}

/** The RFC 6750 challenge for a 401: `error="invalid_token"` only when a token was sent. */
export function bearerChallenge(result: AuthResult): string {
  return result.status === 'invalid' ? 'Bearer error="invalid_token"' : 'Bearer';
}

/** One-shot hashing: no Hash object per request, unlike createHash. */
function digest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}
