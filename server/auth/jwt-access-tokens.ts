/** JWT access tokens (RFC 9068), verified with jose; loaded only when AUTH_JWKS_URL is set, so static tokens never load jose. */
import type { FastifyBaseLogger } from 'fastify';
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { AuthResult } from '../../routers/auth.js';
import type { JwtConfig } from './auth-config.js';
import { KEYS_MAX_AGE_MS, KeysUnavailable, ProviderKeys } from './provider-keys.js';
import { VerifiedTokens } from './verified-tokens.js';

/**
 * Asymmetric algorithms only: `none` and the HMAC ones (`HS*`, whose key would be the public key) are refused before
 * any key is looked up.
 */
export const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const MAX_VERIFIED_TOKENS = 1_000;

const invalid = (reason: string): AuthResult => ({ status: 'invalid', reason });

export class JwtAccessTokens {
  private readonly keys: ProviderKeys;
  private readonly verified = new VerifiedTokens(MAX_VERIFIED_TOKENS);
  private readonly options: JWTVerifyOptions;
  private readonly clockSkewMs: number;

  constructor(
    config: JwtConfig,
    private readonly log: FastifyBaseLogger,
  ) {
    const onChange = (): void => {
      this.verified.clear();
    };
    this.keys = new ProviderKeys({ url: config.jwksUrl, cooldownMs: config.jwksCooldownS * 1000, log, onChange });
    this.clockSkewMs = config.clockSkewS * 1000;
    this.options = {
      issuer: config.issuer,
      audience: config.audiences,
      algorithms: ACCEPTED_ALGORITHMS,
      clockTolerance: config.clockSkewS,
      requiredClaims: ['exp', 'sub'],
      ...(config.requireAtJwt && { typ: 'at+jwt' }),
    };
  }

  start(): void {
    this.keys.prefetch();
  }

  /** The verdict: at once for a token verified before and still good, else once jose has checked it. */
  verify(token: string): AuthResult | Promise<AuthResult> {
    return this.verified.get(token) ?? this.verifyNow(token);
  }

  private async verifyNow(token: string): Promise<AuthResult> {
    try {
      return this.accepted(token, await this.verifiedPayload(token));
    } catch (error) {
      return this.refused(error);
    }
  }

  /**
   * A token naming no key (as during a rotation) is tried with each key, as jose's docs advise; if none verifies, the keys
   * are fetched again (once per cooldown): a provider that writes no kid may sign with a key published since.
   */
  private async verifiedPayload(token: string, refreshed = false): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, this.keys.getKey, this.options)).payload;
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys || (error instanceof errors.JWSSignatureVerificationFailed && !hasKid(token))))
        throw error;
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        for await (const key of error) {
          try {
            return (await jwtVerify(token, key, this.options)).payload;
          } catch (attempt) {
            if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt;
          }
        }
      }
      if (!refreshed && (await this.keys.refresh())) return this.verifiedPayload(token, true);
      throw new errors.JWSSignatureVerificationFailed();
    }
  }

  private accepted(token: string, payload: JWTPayload): AuthResult {
    if (typeof payload.sub !== 'string' || payload.sub === '') return invalid('its sub claim is not a string');
    const scopes = scopesOf(payload);
    if (scopes === undefined)
      return invalid('its scope claim is not a space-separated string, or its scp claim not one or an array of strings');
    const verdict = { status: 'valid', principal: { name: payload.sub, scopes } } as const;
    const expiresAt = (payload.exp ?? 0) * 1000 + this.clockSkewMs;
    this.verified.add(token, verdict, Math.min(expiresAt, Date.now() + KEYS_MAX_AGE_MS));
    return verdict;
  }

  private refused(error: unknown): AuthResult {
    if (error instanceof KeysUnavailable) return { status: 'unavailable', retryAfterS: Math.max(1, Math.ceil(error.retryAfterMs / 1000)) };
    const reason = reasonOf(error);
    if (reason !== undefined) return invalid(reason);
    this.log.error({ err: error }, 'unexpected failure while verifying a JWT');
    return invalid('it could not be verified');
  }
}

function hasKid(token: string): boolean {
  try {
    return typeof decodeProtectedHeader(token).kid === 'string';
  } catch {
    return false;
  }
}

/** What a client is told of jose's refusal, in words fit for a WWW-Authenticate header; undefined for an error that is not jose's. */
function reasonOf(error: unknown): string | undefined {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `it has no ${error.claim} claim`;
    switch (error.claim) {
      case 'nbf':
        return 'it is not valid yet (nbf)';
      case 'aud':
        return 'it is meant for another audience (aud)';
      case 'iss':
        return 'it comes from another issuer (iss)';
      case 'typ':
        return 'its typ header is not at+jwt: it is not an access token';
      default:
        return `its ${error.claim} claim is not valid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return `its algorithm is not allowed: only ${ACCEPTED_ALGORITHMS.join(', ')} are`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'it is signed with a key the identity provider does not publish (kid)';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof errors.JOSENotSupported)
    return 'it needs a JOSE feature the service does not support, such as a critical header (crit)';
  if (error instanceof errors.JOSEError) return 'it is not a well-formed JWT';
  return undefined;
}

/** The scopes of `scope` (space-separated) and `scp` (space-separated, or an array); undefined when either is something else. */
function scopesOf({ scope, scp }: JWTPayload): Set<string> | undefined {
  const scopes = new Set<string>();
  for (const claim of [scope, scp]) {
    if (claim === undefined) continue;
    const names =
      typeof claim === 'string'
        ? claim.split(' ')
        : Array.isArray(claim) && claim.every((name) => typeof name === 'string')
          ? claim
          : undefined;
    if (names === undefined) return undefined;
    for (const name of names) if (name !== '') scopes.add(name);
  }
  return scopes;
}
