/**
 * An identity provider for tests: signing keys made with jose, their public halves served as a
 * JWKS over HTTP on 127.0.0.1, and access tokens minted with them. The JWKS can be stopped and
 * started again on the same port (down, then up), and its keys changed while it runs (rotation).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';
import { freePort } from '@plant-store/service-launcher';

export const ISSUER = 'https://id.plants.test/';
export const AUDIENCE = 'https://api.plants.test';

export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  /** The public key as the JWKS publishes it (with kid, alg and use). */
  jwk: JWK;
}

export async function makeSigningKey(kid: string, alg: SigningAlgorithm = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** What a token says; every claim has a sensible default and can be changed or removed (`undefined`). */
export interface TokenClaims {
  sub?: string | undefined;
  iss?: string | undefined;
  aud?: string | string[] | undefined;
  scope?: unknown;
  scp?: unknown;
  /** Seconds from now for `exp` (negative: in the past); null: no `exp`. */
  expiresIn?: number | null;
  /** Seconds from now for `nbf`; absent by default. */
  notBefore?: number | undefined;
  [claim: string]: unknown;
}

export interface MintOptions {
  /** The key that signs; the provider's first key by default. */
  key?: SigningKey;
  /** Header parameters added to (or overriding) `alg`, `kid` and `typ`. */
  header?: Partial<JWTHeaderParameters> & Record<string, unknown>;
}

export interface IdentityProvider {
  /** The JWKS URL, the same whether it is up or down. */
  readonly jwksUrl: string;
  /** The keys the JWKS publishes now; change it to rotate. */
  published: SigningKey[];
  /** Requests the JWKS got. */
  readonly fetches: number;
  /** Bytes of padding in the key set (a key with a long field), sent in chunks without a Content-Length: 0 for none. */
  padding: number;
  /** The service's environment for this provider. */
  env(extra?: Record<string, string>): Record<string, string>;
  mint(claims?: TokenClaims, options?: MintOptions): Promise<string>;
  /** Stops answering: the port refuses connections. */
  down(): Promise<void>;
  /** Answers again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startIdentityProvider({
  keys,
  listening = true,
}: { keys?: SigningKey[]; listening?: boolean } = {}): Promise<IdentityProvider> {
  const port = await freePort();
  let fetches = 0;
  let server: Server | undefined;
  const provider: IdentityProvider = {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    published: keys ?? [await makeSigningKey('key-1')],
    get fetches() {
      return fetches;
    },
    padding: 0,
    env: (extra = {}) => ({ AUTH_JWKS_URL: provider.jwksUrl, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, ...extra }),
    mint: async (claims = {}, { key, header = {} } = {}) => {
      const signer = key ?? provider.published[0];
      if (!signer) throw new Error('the identity provider has no key to sign with');
      const now = Math.floor(Date.now() / 1000);
      const { expiresIn = 300, notBefore, ...rest } = claims;
      const payload = {
        sub: 'client-1',
        iss: ISSUER,
        aud: AUDIENCE,
        iat: now,
        scope: 'plants:read plants:write',
        exp: expiresIn === null ? undefined : now + expiresIn,
        ...(notBefore !== undefined && { nbf: now + notBefore }),
        ...rest,
      };
      const defined = Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined));
      return new SignJWT(defined)
        .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'at+jwt', ...header })
        .sign(signer.privateKey);
    },
    down: async () => {
      if (!server) return;
      const closing = server;
      server = undefined;
      closing.closeAllConnections();
      closing.close();
      await once(closing, 'close');
    },
    up: async () => {
      if (server) return;
      server = createServer((request, response) => {
        fetches++;
        if (request.url !== '/.well-known/jwks.json') {
          response.writeHead(404).end();
          return;
        }
        const keys = JSON.stringify({
          keys: [...provider.published.map((key) => key.jwk), ...(provider.padding > 0 ? [{ kty: 'oct', kid: 'padding', k: '' }] : [])],
        });
        if (provider.padding === 0) {
          response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(keys);
          return;
        }
        // The padding goes inside the last key's "k", a chunk at a time: no Content-Length tells its size ahead.
        const [head, tail] = [keys.slice(0, -4), keys.slice(-4)];
        response.writeHead(200, { 'content-type': 'application/jwk-set+json' });
        response.write(head);
        const chunk = 'A'.repeat(64 * 1024);
        for (let sent = 0; sent < provider.padding; sent += chunk.length) response.write(chunk);
        response.end(tail);
      });
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close: () => provider.down(),
  };
  if (listening) await provider.up();
  return provider;
}

/** A token as an attacker builds it by hand: any header, any payload, any signature text. */
export function forgedToken(header: Record<string, unknown>, payload: Record<string, unknown>, signature = ''): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(payload)}.${signature}`;
}

/** The standard claims of a token that would be accepted, for forged tokens. */
export function goodClaims(): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { sub: 'attacker', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 300, scope: 'plants:read plants:write' };
}
