// Scopes in process: `createCaller` through the app (createAppCaller) with JWT access tokens from
// an identity provider on loopback, a context that carries its principal, the request log's
// caller, and verified tokens that stop counting when they expire.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { createAppCaller } from '../../server/app.js';
import { createAuthenticator } from '../../server/auth/authenticator.js';
import { MongoPlantStore } from '../../server/plants/mongo-plant-store.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import {
  makeSigningKey,
  startIdentityProvider,
  type IdentityProvider,
  type SigningKey,
  type TokenClaims,
} from '../helpers/identity-provider.js';
import { captureLogs } from '../helpers/log-capture.js';
import { PLANT_OPERATIONS, type OperationName } from '../helpers/plant-calls.js';

const logs = captureLogs();
let provider: IdentityProvider;
let testApp: TestApp;
beforeAll(async () => {
  provider = await startIdentityProvider();
  testApp = await startTestApp({
    env: provider.env({ LOG_LEVEL: 'info', AUTH_CLOCK_SKEW_S: '0', API_TOKENS: 'ops-dashboard static-token-Pp4, static-token-Nn7' }),
    overrides: { logStream: logs.stream },
  });
});
afterAll(async () => {
  await testApp.close();
  await provider.close();
});

let nextId = 1;

/** The operation in process, on a plant of its own (stored first with a static token when it needs one). */
async function callInProcess(operation: OperationName, authorization: string): Promise<unknown> {
  const id = nextId++;
  if (operation === 'getPlant' || operation === 'deletePlant')
    await createAppCaller(testApp.app, 'Bearer static-token-Pp4').createPlant({ id, name: 'Fern' });
  const caller = createAppCaller(testApp.app, authorization);
  switch (operation) {
    case 'createPlant':
      return caller.createPlant({ id, name: 'Fern' });
    case 'listPlants':
      return caller.listPlants({ limit: 1 });
    case 'getPlant':
      return caller.getPlant({ id });
    case 'deletePlant':
      return caller.deletePlant({ id });
  }
}

describe('createCaller: every scope against every operation', () => {
  const GRANTS = ['plants:read', 'plants:write', 'plants:read plants:write', 'openid'];
  const cases = PLANT_OPERATIONS.flatMap((operation) => GRANTS.map((scope) => ({ operation, scope })));

  it.each(cases)('$operation.name with scope "$scope"', async ({ operation, scope }) => {
    const call = callInProcess(operation.name, `Bearer ${await provider.mint({ scope })}`);
    if (scope.split(' ').includes(operation.scope)) {
      await expect(call).resolves.not.toBeInstanceOf(Error);
      return;
    }
    const error: unknown = await call.catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({
      code: 'FORBIDDEN',
      message: `insufficient scope: this operation needs the scope ${operation.scope}, which the token does not grant`,
    });
  });

  it('UNAUTHORIZED for a refused token, saying why', async () => {
    const expired = await provider.mint({ expiresIn: -5 });
    await expect(callInProcess('listPlants', `Bearer ${expired}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'invalid bearer token: it has expired',
    });
  });
});

describe('the context carries the principal and its scopes', () => {
  const store = () => new MongoPlantStore(testApp.db, { w: 'majority', journal: true });

  it('set once a protected procedure has admitted the call, from the token', async () => {
    const authenticator = await createAuthenticator(testConfig(provider.env()), testApp.app.log);
    const context = createContextFactory({ store: store(), verifyToken: authenticator.verify })(
      `Bearer ${await provider.mint({ sub: 'report-builder', scope: 'plants:read' })}`,
    );
    expect(context.auth).toBeInstanceOf(Promise);
    await createCaller(context).listPlants({ limit: 1 });
    expect(context.principal).toEqual({ name: 'report-builder', scopes: new Set(['plants:read']) });
  });

  it('is a value, not a promise, for a static token and for a JWT verified before', async () => {
    const authenticator = await createAuthenticator(
      testConfig(provider.env({ API_TOKENS: 'ops-dashboard static-token-Pp4' })),
      testApp.app.log,
    );
    const createContext = createContextFactory({ store: store(), verifyToken: authenticator.verify });
    expect(createContext('Bearer static-token-Pp4').auth).toEqual({
      status: 'valid',
      principal: { name: 'ops-dashboard', scopes: new Set(['plants:read', 'plants:write']) },
    });
    const token = await provider.mint({ sub: 'twice' });
    await createContext(`Bearer ${token}`).auth;
    expect(createContext(`Bearer ${token}`).auth).toMatchObject({ status: 'valid', principal: { name: 'twice' } });
  });

  it('or given by the caller itself, and checked the same way', async () => {
    const principal = { name: 'nightly-import', scopes: new Set(['plants:write']) };
    const caller = createCaller({ store: store(), auth: { status: 'valid', principal } });
    await expect(caller.createPlant({ id: nextId++, name: 'Ivy' })).resolves.toEqual({ name: 'Ivy' });
    await expect(caller.listPlants({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('tokens already verified', () => {
  it('stop counting when they expire (AUTH_CLOCK_SKEW_S=0)', async () => {
    const token = await provider.mint({ expiresIn: 2 });
    await expect(callInProcess('listPlants', `Bearer ${token}`)).resolves.toBeDefined();
    const expiresAt = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number }).exp * 1000;
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 50));
    await expect(callInProcess('listPlants', `Bearer ${token}`)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'invalid bearer token: it has expired',
    });
  });
});

describe('AUTH_REQUIRE_AT_JWT=true', () => {
  it('accepts only tokens whose typ header is at+jwt (RFC 9068)', async () => {
    const strict = await startTestApp({ env: provider.env({ AUTH_REQUIRE_AT_JWT: 'true' }) });
    try {
      const answer = async (typ: string | undefined) => {
        const response = await strict.app.inject({
          method: 'GET',
          url: '/plants',
          headers: { authorization: `Bearer ${await provider.mint({}, { header: { typ } })}` },
        });
        return { status: response.statusCode, challenge: response.headers['www-authenticate'] };
      };
      expect(await answer('at+jwt')).toEqual({ status: 200, challenge: undefined });
      expect(await answer('application/at+jwt')).toEqual({ status: 200, challenge: undefined });
      for (const typ of ['JWT', undefined]) {
        expect(await answer(typ)).toEqual({
          status: 401,
          challenge: 'Bearer error="invalid_token", error_description="its typ header is not at+jwt: it is not an access token"',
        });
      }
    } finally {
      await strict.close();
    }
  });
});

describe('a token with no kid', () => {
  it("is verified with whichever of the provider's keys of its algorithm signed it; refused when none did, or for what else is wrong", async () => {
    const [current, next, stranger] = await Promise.all(['current', 'next', 'stranger'].map((kid) => makeSigningKey(kid, 'RS256')));
    if (!current || !next || !stranger) throw new Error('no keys');
    const rotating = await startIdentityProvider({ keys: [current, next] });
    const app = await startTestApp({ env: rotating.env() });
    try {
      const answer = async (key: SigningKey, claims: TokenClaims = {}) => {
        const token = await rotating.mint(claims, { key, header: { kid: undefined } });
        const response = await app.app.inject({ method: 'GET', url: '/plants', headers: { authorization: `Bearer ${token}` } });
        return { status: response.statusCode, challenge: response.headers['www-authenticate'] };
      };
      expect(await answer(current)).toEqual({ status: 200, challenge: undefined });
      expect(await answer(next)).toEqual({ status: 200, challenge: undefined });
      expect(await answer(stranger)).toEqual({
        status: 401,
        challenge: 'Bearer error="invalid_token", error_description="its signature does not verify"',
      });
      expect(await answer(next, { expiresIn: -60 })).toEqual({
        status: 401,
        challenge: 'Bearer error="invalid_token", error_description="it has expired"',
      });
    } finally {
      await app.close();
      await rotating.close();
    }
  });

  it('signed with a key published since the keys were fetched: accepted once they are fetched again, at most once per cooldown', async () => {
    const [only, added] = await Promise.all(['only', 'added'].map((kid) => makeSigningKey(kid, 'ES256')));
    if (!only || !added) throw new Error('no keys');
    const rotating = await startIdentityProvider({ keys: [only] });
    const app = await startTestApp({ env: rotating.env({ AUTH_JWKS_COOLDOWN_S: '3' }) });
    try {
      const status = async (key: SigningKey) => {
        const token = await rotating.mint({}, { key, header: { kid: undefined } });
        return (await app.app.inject({ method: 'GET', url: '/plants', headers: { authorization: `Bearer ${token}` } })).statusCode;
      };
      expect(await status(only)).toBe(200);
      rotating.published = [only, added];
      const fetches = rotating.fetches;
      // Within the cooldown of the last fetch: the keys held are all there is to try.
      expect(await status(added)).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 3_100));
      expect(await status(added)).toBe(200);
      expect(await status(only)).toBe(200);
      expect(rotating.fetches - fetches).toBe(1);
    } finally {
      await app.close();
      await rotating.close();
    }
  });
});

describe('the request log line names the caller', () => {
  it.each([
    ['a JWT, by its sub', () => provider.mint({ sub: 'ledger-sync' }), 'ledger-sync'],
    ['a named static token, by its name', () => Promise.resolve('static-token-Pp4'), 'ops-dashboard'],
    ['an unnamed static token, by its place in API_TOKENS', () => Promise.resolve('static-token-Nn7'), 'API_TOKENS#2'],
  ])('%s', async (_case, makeToken, principal) => {
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/plants?limit=1',
      headers: { authorization: `Bearer ${await makeToken()}` },
    });
    expect(response.statusCode).toBe(200);
    const line = logs.lines().find((logged) => logged.reqId === response.headers['x-request-id']);
    expect(line).toMatchObject({ msg: 'request completed', status: 200, principal });
  });

  it('names no one for a refused token', async () => {
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/plants',
      headers: { authorization: `Bearer ${await provider.mint({ aud: 'elsewhere' })}` },
    });
    expect(response.statusCode).toBe(401);
    const line = logs.lines().find((logged) => logged.reqId === response.headers['x-request-id']);
    expect(line).toMatchObject({ msg: 'request completed', status: 401 });
    expect(line).not.toHaveProperty('principal');
  });
});
