import { z } from 'zod';
import { listItems } from '../env/env-lists.js';
import type { NamedToken, NamedTokenHash } from './bearer-tokens.js';

/** JWT access tokens from an identity provider: where its keys are and what a token must say. */
export interface JwtConfig {
  jwksUrl: string;
  issuer: string;
  audiences: string[];
  clockSkewS: number;
  jwksCooldownS: number;
  /** RFC 9068 `typ: at+jwt` (AUTH_REQUIRE_AT_JWT). */
  requireAtJwt: boolean;
}

/** Who may call: static tokens, their hashes, and JWT access tokens. Any of them may be set alone. */
export interface AuthConfig {
  /** Empty outside production: a development token is made at start-up when nothing else is set. */
  apiTokens: NamedToken[];
  apiTokenHashes: NamedTokenHash[];
  /** Undefined without AUTH_JWKS_URL: jose is then never loaded. */
  jwt: JwtConfig | undefined;
}

/** A name or a token: printable ASCII, no spaces (commas separate the items). */
const PRINTABLE = /^[\x21-\x7e]+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** Comma-separated `value` or `name value` items. Problems name an item by position, never by its text, which may be a secret. */
function namedList<T>(variable: string, valueRule: string, isValue: (value: string) => boolean, make: (name: string, value: string) => T) {
  return z
    .string()
    .optional()
    .transform((text, context) =>
      listItems(text ?? '').flatMap((item, index) => {
        const words = item.split(/\s+/);
        const value = words.at(-1) ?? '';
        const name = words.length === 2 ? (words[0] ?? '') : `${variable}#${index + 1}`;
        if (words.length > 2 || !PRINTABLE.test(name) || !isValue(value)) {
          context.addIssue({
            code: 'custom',
            message: `item ${index + 1} is not "value" or "name value": ${valueRule}, a name printable ASCII without spaces`,
          });
          return [];
        }
        return [make(name, value)];
      }),
    );
}

const seconds = (fallback: number, min: number, max: number) => {
  const error = `must be a whole number of seconds from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

/** The environment variables of authentication, for the config schema. */
export const AUTH_ENV = {
  API_TOKENS: namedList(
    'API_TOKENS',
    'a token is printable ASCII without spaces or commas',
    (value) => PRINTABLE.test(value),
    (name, token): NamedToken => ({ name, token }),
  ),
  API_TOKEN_HASHES: namedList(
    'API_TOKEN_HASHES',
    'a hash is the SHA-256 of a token in hex, 64 digits',
    (value) => SHA256_HEX.test(value),
    (name, sha256): NamedTokenHash => ({ name, sha256: sha256.toLowerCase() }),
  ),
  AUTH_JWKS_URL: z
    .string()
    .optional()
    .refine((url) => url === undefined || isHttpUrlWithoutCredentials(url), {
      error: "must be the http(s) URL of the identity provider's JSON Web Key Set, without user:password@",
    }),
  AUTH_ISSUER: z
    .string()
    .optional()
    .refine((issuer) => issuer === undefined || PRINTABLE.test(issuer), {
      error: 'must be the exact iss of the tokens, printable ASCII without spaces',
    }),
  AUTH_AUDIENCE: z
    .string()
    .optional()
    .transform((text) => (text === undefined ? undefined : listItems(text)))
    .refine((audiences) => audiences === undefined || (audiences.length > 0 && audiences.every((audience) => PRINTABLE.test(audience))), {
      error: 'must be the aud value (or comma-separated values) meaning this API, printable ASCII without spaces',
    }),
  AUTH_CLOCK_SKEW_S: seconds(30, 0, 300),
  AUTH_JWKS_COOLDOWN_S: seconds(30, 1, 3600),
  AUTH_REQUIRE_AT_JWT: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
};

type AuthEnv = z.output<z.ZodObject<typeof AUTH_ENV>>;

/** The settings, or the problem with a combination of them (each variable valid alone). */
export function authConfig(e: AuthEnv): AuthConfig | { problem: string } {
  const { AUTH_JWKS_URL: jwksUrl, AUTH_ISSUER: issuer, AUTH_AUDIENCE: audiences } = e;
  if (jwksUrl === undefined) {
    if (issuer !== undefined || audiences !== undefined)
      return { problem: 'AUTH_ISSUER and AUTH_AUDIENCE are set only with AUTH_JWKS_URL, which is not set' };
    return { apiTokens: e.API_TOKENS, apiTokenHashes: e.API_TOKEN_HASHES, jwt: undefined };
  }
  if (issuer === undefined || audiences === undefined) {
    const missing = [issuer === undefined && 'AUTH_ISSUER', audiences === undefined && 'AUTH_AUDIENCE'].filter(Boolean).join(' and ');
    return { problem: `${missing} must be set when AUTH_JWKS_URL is set: a token is accepted only from that issuer, for this audience` };
  }
  return {
    apiTokens: e.API_TOKENS,
    apiTokenHashes: e.API_TOKEN_HASHES,
    jwt: {
      jwksUrl,
      issuer,
      audiences,
      clockSkewS: e.AUTH_CLOCK_SKEW_S,
      jwksCooldownS: e.AUTH_JWKS_COOLDOWN_S,
      requireAtJwt: e.AUTH_REQUIRE_AT_JWT,
    },
  };
}

export function acceptsAnyone({ apiTokens, apiTokenHashes, jwt }: AuthConfig): boolean {
  return apiTokens.length > 0 || apiTokenHashes.length > 0 || jwt !== undefined;
}

/** In production keys must come over https, or anyone on the path could publish their own; http stays allowed to loopback. */
export function jwksUrlProblemInProduction({ jwt }: AuthConfig): string | undefined {
  if (jwt === undefined) return undefined;
  const { protocol, hostname } = new URL(jwt.jwksUrl);
  if (protocol === 'https:' || isLoopbackHost(hostname)) return undefined;
  return (
    'AUTH_JWKS_URL must be an https URL when NODE_ENV=production (http only to a loopback host such as ' +
    '127.0.0.1): over http, anyone on the path can swap the keys'
  );
}

/** localhost, 127.0.0.0/8 or ::1, as the WHATWG URL parser writes them. */
function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function isHttpUrlWithoutCredentials(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol, username, password } = new URL(text);
  return (protocol === 'http:' || protocol === 'https:') && username === '' && password === '';
}
