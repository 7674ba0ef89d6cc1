import type { FastifyBaseLogger } from 'fastify';
import type { TokenVerifier } from '../../routers/auth.js';
import type { AuthConfig } from './auth-config.js';
import { bearerToken, NOT_ACCEPTED, StaticTokens } from './bearer-tokens.js';
import type { JwtAccessTokens } from './jwt-access-tokens.js';

/** A JWS in compact form: three base64url parts (the last, the signature, may be empty: `alg: none`). */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

export interface Authenticator {
  /** The verdict on an Authorization header: static tokens first, then JWT access tokens. */
  verify: TokenVerifier;
  start: () => void;
}

/** jose is imported only when JWT access tokens are configured, so static tokens alone cost one digest and no promise. */
export async function createAuthenticator(config: AuthConfig, log: FastifyBaseLogger): Promise<Authenticator> {
  const statics = new StaticTokens(config.apiTokens, config.apiTokenHashes);
  let jwt: JwtAccessTokens | undefined;
  if (config.jwt) {
    const { JwtAccessTokens } = await import('./jwt-access-tokens.js');
    jwt = new JwtAccessTokens(config.jwt, log);
  }
  const asJwt = (token: string) => (jwt !== undefined && JWT_SHAPE.test(token) ? jwt : undefined);
  return {
    verify: (authorization) => {
      const token = bearerToken(authorization);
      if (typeof token !== 'string') return token;
      return statics.match(token) ?? asJwt(token)?.verify(token) ?? NOT_ACCEPTED;
    },
    start: () => jwt?.start(),
  };
}
