// JWT access tokens against the built service as a separate process (`npm run build` first):
// an identity provider played by the test (keys made with jose, their JWKS served over HTTP on
// loopback, tokens minted here), static tokens beside it, every scope against every operation
// over REST and /trpc, expiry and skew, keys rotated while the service runs, a JWKS that is down
// then up, and tokens built to get around the checks.
import { createHash, createHmac, createPublicKey, KeyObject, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import {
  forgedToken,
  goodClaims,
  makeSigningKey,
  startIdentityProvider,
  type IdentityProvider,
  type SigningKey,
} from '../helpers/identity-provider.js';
import { callOperation, PLANT_OPERATIONS, refusalOf, type Transport } from '../helpers/plant-calls.js';
import { spawnService, startService, type ServiceProcess } from '@plant-store/service-launcher';
import { openRawSocket, parseResponse } from '../helpers/raw-socket.js';

const FAST_PATH = process.env.FAST_PATH ?? 'on';
const STATIC_TOKEN = 'static-token-Qm3vX8';
const HASHED_TOKEN = 'hashed-token-9ZkLw2';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The environment of a service with all three kinds of token. */
function serviceEnv(provider: IdentityProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MONGODB_URI: testMongoUri(),
    FAST_PATH,
    LOG_LEVEL: 'info',
    API_TOKENS: `ops-dashboard ${STATIC_TOKEN}`,
    API_TOKEN_HASHES: `ci ${sha256(HASHED_TOKEN)}`,
    AUTH_CLOCK_SKEW_S: '5',
    AUTH_JWKS_COOLDOWN_S: '1',
    ...provider.env(),
    ...extra,
  };
}

let nextId = 1000;
const freshId = () => nextId++;

/** A JWS signed by hand, for headers jose's signer would refuse to write. */
function signedByHand(header: Record<string, unknown>, payload: Record<string, unknown>, key: SigningKey): string {
  const unsigned = forgedToken(header, payload).slice(0, -1);
  const signature = sign('sha256', Buffer.from(unsigned), KeyObject.from(key.privateKey)).toString('base64url');
  return `${unsigned}.${signature}`;
}

describe('JWT access tokens, the service running as a process', () => {
  let provider: IdentityProvider;
  let service: ServiceProcess;
  beforeAll(async () => {
    provider = await startIdentityProvider();
    service = await startService(serviceEnv(provider));
  });
  afterAll(async () => {
    await service.stop();
    await provider.close();
  });

  /** Stores plant `id` with the static token, for the operations that need one. */
  async function storePlant(id: number): Promise<void> {
    expect((await callOperation(service.url, 'REST', 'createPlant', id, STATIC_TOKEN)).status).toBe(200);
  }

  const GRANTS = ['plants:read', 'plants:write', 'plants:read plants:write', 'openid profile'];
  const cases = PLANT_OPERATIONS.flatMap((operation) =>
    GRANTS.flatMap((scope) => (['REST', '/trpc'] as Transport[]).map((transport) => ({ operation, scope, transport }))),
  );

  it.each(cases)('$operation.name over $transport with scope "$scope"', async ({ operation, scope, transport }) => {
    const id = freshId();
    if (operation.needsPlant) await storePlant(id);
    const token = await provider.mint({ scope });
    const response = await callOperation(service.url, transport, operation.name, id, token);
    if (scope.split(' ').includes(operation.scope)) {
      expect(response.status).toBe(transport === 'REST' ? operation.restSuccess : 200);
      return;
    }
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${operation.scope}"`);
    expect(await refusalOf(response)).toEqual({
      status: 403,
      message: `insufficient scope: this operation needs the scope ${operation.scope}, which the token does not grant`,
      code: transport === 'REST' ? undefined : 'FORBIDDEN',
    });
  });

  it('judges the scope before the body, over REST and /trpc alike: 403 for a body it would refuse, nothing stored', async () => {
    const token = await provider.mint({ sub: 'read-only-job', scope: 'plants:read' });
    const send = (path: string, body: string, method = 'POST', contentType = 'application/json') =>
      fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
    const id = freshId();
    for (const [path, method] of [
      ['/plants', 'POST'],
      ['/trpc/createPlant', 'POST'],
      [`/plants/${id}`, 'PATCH'],
      ['/trpc/updatePlant', 'POST'],
    ] as const) {
      for (const body of ['{bad', '[]', '', `{"id":${id},"id":${id}}`, '{"id":1,"name":"\\ud800"}']) {
        const response = await send(path, body, method);
        expect([path, body, response.status]).toStrictEqual([path, body, 403]);
        expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="plants:write"');
      }
      expect((await send(path, '{}', method, 'text/plain')).status).toBe(403);
    }
    // A call sent with the method its procedure does not take gets tRPC's 405, whatever the scope.
    const wrongMethod = await fetch(`${service.url}/trpc/createPlant`, { headers: { authorization: `Bearer ${token}` } });
    expect(wrongMethod.status).toBe(405);
    // A batch's calls are judged one by one, by tRPC: a query in it is answered.
    const batch = await fetch(`${service.url}/trpc/listPlants?batch=1&input=${encodeURIComponent('{"0":{"limit":1}}')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(batch.status).toBe(200);
    expect((await callOperation(service.url, 'REST', 'getPlant', id, STATIC_TOKEN)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refusedLines = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"request completed"') && line.includes('"status":403') && line.includes('read-only-job'));
    expect(refusedLines.length).toBeGreaterThanOrEqual(20);
  });

  it('reads scopes from scp too, as an array or a space-separated string', async () => {
    for (const scp of [['plants:read'], 'plants:read']) {
      const token = await provider.mint({ scope: undefined, scp });
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, token)).status).toBe(200);
      expect((await callOperation(service.url, 'REST', 'createPlant', freshId(), token)).status).toBe(403);
    }
  });

  it('accepts static tokens beside JWTs, plain or as a hash, with every scope', async () => {
    for (const token of [STATIC_TOKEN, HASHED_TOKEN]) {
      for (const transport of ['REST', '/trpc'] as const) {
        const id = freshId();
        expect((await callOperation(service.url, transport, 'createPlant', id, token)).status).toBe(200);
        expect((await callOperation(service.url, transport, 'getPlant', id, token)).status).toBe(200);
      }
    }
    // The hash is accepted as a hash of the token, not as a token itself.
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, sha256(HASHED_TOKEN))).status).toBe(401);
  });

  it('names the caller in each request log line: the JWT sub, or the static token name; never a token', async () => {
    const token = await provider.mint({ sub: 'reporting-job', scope: 'plants:read' });
    await callOperation(service.url, 'REST', 'listPlants', 0, token);
    await callOperation(service.url, '/trpc', 'listPlants', 0, token);
    await callOperation(service.url, 'REST', 'listPlants', 0, HASHED_TOKEN);
    await callOperation(service.url, 'REST', 'createPlant', freshId(), token);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"request completed"'))
      .map((line) => JSON.parse(line) as { path: string; status: number; principal?: string });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/plants?limit=1', status: 200, principal: 'reporting-job' }),
        expect.objectContaining({ path: expect.stringMatching(/^\/trpc\/listPlants/) as unknown, status: 200, principal: 'reporting-job' }),
        expect.objectContaining({ path: '/plants?limit=1', status: 200, principal: 'ci' }),
        expect.objectContaining({ path: '/plants', status: 403, principal: 'reporting-job' }),
      ]),
    );
    for (const secret of [token, HASHED_TOKEN, STATIC_TOKEN]) expect(service.output()).not.toContain(secret);
  });

  describe('refuses with 401, error="invalid_token" and a message saying why', () => {
    const refusals: [string, () => Promise<string>, string][] = [
      ['an expired token (past the clock skew)', () => provider.mint({ expiresIn: -10 }), 'it has expired'],
      ['a token not valid yet (nbf past the clock skew)', () => provider.mint({ notBefore: 10 }), 'it is not valid yet (nbf)'],
      ['a token for another audience', () => provider.mint({ aud: 'https://another-api.test' }), 'it is meant for another audience (aud)'],
      ['a token from another issuer', () => provider.mint({ iss: 'https://impostor.test/' }), 'it comes from another issuer (iss)'],
      ['a token without exp', () => provider.mint({ expiresIn: null }), 'it has no exp claim'],
      ['a token without sub', () => provider.mint({ sub: undefined }), 'it has no sub claim'],
      [
        'a token whose scope is not a string',
        () => provider.mint({ scope: 42 }),
        'its scope claim is not a space-separated string, or its scp claim not one or an array of strings',
      ],
      [
        'a token signed with a key the provider does not publish',
        async () => provider.mint({}, { key: await makeSigningKey('key-unpublished') }),
        'it is signed with a key the identity provider does not publish (kid)',
      ],
      [
        'a token whose signature does not verify',
        async () => provider.mint({}, { key: await makeSigningKey('key-1') }),
        'its signature does not verify',
      ],
      [
        'a token whose payload was changed after signing',
        async () => tamperedToken(await provider.mint({ scope: 'plants:read' })),
        'its signature does not verify',
      ],
      ['three parts of base64url that are not a JWT', () => Promise.resolve('bm90.YQ.c2ln'), 'it is not a well-formed JWT'],
      [
        'a token that is none of the static tokens and no JWT',
        () => Promise.resolve('not-a-token-we-issued'),
        'it is not a token this service accepts',
      ],
    ];

    it.each(refusals)('%s', async (_case, makeToken, reason) => {
      const token = await makeToken();
      for (const transport of ['REST', '/trpc'] as const) {
        const response = await callOperation(service.url, transport, 'listPlants', 0, token);
        expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${reason}"`);
        expect(await refusalOf(response)).toEqual({
          status: 401,
          message: `invalid bearer token: ${reason}`,
          code: transport === 'REST' ? undefined : 'UNAUTHORIZED',
        });
      }
    });

    it('accepts expiry and nbf within the clock skew (AUTH_CLOCK_SKEW_S=5)', async () => {
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, await provider.mint({ expiresIn: -3 }))).status).toBe(200);
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, await provider.mint({ notBefore: 3 }))).status).toBe(200);
    });

    it('accepts a token whose typ is JWT or absent: at+jwt is not required by default', async () => {
      for (const typ of ['JWT', undefined]) {
        const token = await provider.mint({}, { header: { typ } });
        expect((await callOperation(service.url, 'REST', 'listPlants', 0, token)).status).toBe(200);
      }
    });
  });

  describe('tokens built to get around the checks: each answered 401, nothing followed', () => {
    let attacker: IdentityProvider;
    beforeAll(async () => {
      attacker = await startIdentityProvider({ keys: [await makeSigningKey('key-1')] });
    });
    afterAll(async () => {
      await attacker.close();
    });

    const expectRefused = async (token: string, reason: string) => {
      for (const transport of ['REST', '/trpc'] as const) {
        const response = await callOperation(service.url, transport, 'createPlant', freshId(), token);
        expect(await refusalOf(response)).toMatchObject({ status: 401, message: `invalid bearer token: ${reason}` });
      }
    };

    it('alg: none, with or without a signature', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        await expectRefused(
          forgedToken({ alg, kid: 'key-1', typ: 'at+jwt' }, goodClaims()),
          'its algorithm is not allowed: only RS256, PS256, ES256, EdDSA are',
        );
      }
      await expectRefused(
        forgedToken({ alg: 'none' }, goodClaims(), 'c2lnbmF0dXJl'),
        'its algorithm is not allowed: only RS256, PS256, ES256, EdDSA are',
      );
    });

    it("HS256 signed with the provider's public key as the secret (as JWK text, PEM, or modulus)", async () => {
      const published = provider.published[0];
      if (!published) throw new Error('no published key');
      const pem = createPublicKey({ key: published.jwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      });
      const secrets = [JSON.stringify(published.jwk), pem, Buffer.from(String(published.jwk.n), 'base64url')];
      for (const secret of secrets) {
        for (const alg of ['HS256', 'HS384', 'HS512']) {
          const unsigned = forgedToken({ alg, kid: 'key-1', typ: 'at+jwt' }, goodClaims()).slice(0, -1);
          const hmac = createHmac(`sha${alg.slice(2)}`, secret)
            .update(unsigned)
            .digest('base64url');
          await expectRefused(`${unsigned}.${hmac}`, 'its algorithm is not allowed: only RS256, PS256, ES256, EdDSA are');
        }
      }
    });

    it('jku, x5u and jwk headers pointing at the attacker: never fetched, never trusted', async () => {
      const evil = attacker.published[0];
      if (!evil) throw new Error('no attacker key');
      for (const kid of ['key-1', 'attacker-key']) {
        const header = { alg: 'RS256', kid, typ: 'at+jwt', jku: attacker.jwksUrl, x5u: `${attacker.jwksUrl}?x5u`, jwk: evil.jwk };
        const reason =
          kid === 'key-1' ? 'its signature does not verify' : 'it is signed with a key the identity provider does not publish (kid)';
        await expectRefused(signedByHand(header, goodClaims(), evil), reason);
      }
      expect(attacker.fetches).toBe(0);
    });

    it('kid values built to reach a file, a query or another key: matched as text against the published keys only', async () => {
      const key = provider.published[0];
      if (!key) throw new Error('no published key');
      const fetchesBefore = attacker.fetches;
      for (const kid of [
        '../../../../dev/null',
        "key-1' OR '1'='1",
        'key-1\u0000',
        { $ne: null },
        ['key-1'],
        1,
        attacker.jwksUrl,
        'k'.repeat(4_000),
      ]) {
        await expectRefused(
          signedByHand({ alg: 'RS256', kid, typ: 'at+jwt' }, goodClaims(), key),
          'it is signed with a key the identity provider does not publish (kid)',
        );
      }
      expect(attacker.fetches).toBe(fetchesBefore);
    });

    it('a critical header the service does not know (crit), however well signed', async () => {
      const key = provider.published[0];
      if (!key) throw new Error('no published key');
      const header = {
        alg: 'RS256',
        kid: key.kid,
        typ: 'at+jwt',
        crit: ['urn:plants:must-understand'],
        'urn:plants:must-understand': true,
      };
      await expectRefused(
        signedByHand(header, goodClaims(), key),
        'it needs a JOSE feature the service does not support, such as a critical header (crit)',
      );
    });

    it('a token just under the header limit: 401, and one of 100 KB: 431 from the HTTP layer; the service lives on', async () => {
      const padding = 'A'.repeat(15_000);
      await expectRefused(`eyJhbGciOiJSUzI1NiJ9.${padding}.${padding.slice(0, 100)}`, 'its signature does not verify');
      await expectRefused(`x${padding}`, 'it is not a token this service accepts');
      const raw = await openRawSocket(service.url);
      raw.write(`GET /plants HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${'A'.repeat(100 * 1024)}\r\n\r\n`);
      const { data } = await raw.closed;
      expect(parseResponse(data).status).toBe(431);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    });
  });

  describe('keys rotated while the service runs', () => {
    it('a new key at the provider is used at once (unknown kid: fetched again); a withdrawn one stops counting', async () => {
      const [first] = provider.published;
      if (!first) throw new Error('no published key');
      const before = await provider.mint({ sub: 'before-rotation' }, { key: first });
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, before)).status).toBe(200);

      const second = await makeSigningKey('key-2', 'ES256');
      provider.published = [second];
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // the cooldown since the last fetch (AUTH_JWKS_COOLDOWN_S=1)
      const after = await provider.mint({ sub: 'after-rotation' }, { key: second });
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, after)).status).toBe(200);
      expect((await callOperation(service.url, '/trpc', 'listPlants', 0, after)).status).toBe(200);

      // The fetch that brought key-2 no longer has key-1: a token verified with it before is not taken on trust.
      const refused = await callOperation(service.url, 'REST', 'listPlants', 0, before);
      expect(await refusalOf(refused)).toMatchObject({
        status: 401,
        message: 'invalid bearer token: it is signed with a key the identity provider does not publish (kid)',
      });
      provider.published = [first, second];
    });

    it('a flood of tokens with made-up kids costs at most one fetch per cooldown, at once or one after another', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const fetchesBefore = provider.fetches;
      const started = performance.now();
      const stranger = await makeSigningKey('stranger', 'ES256');
      const tokens = await Promise.all(
        Array.from({ length: 40 }, (_, index) => provider.mint({}, { key: stranger, header: { kid: `made-up-${index}` } })),
      );
      const statuses = await Promise.all(
        tokens.slice(0, 30).map(async (token) => (await callOperation(service.url, 'REST', 'listPlants', 0, token)).status),
      );
      // One after another: concurrent requests could share one fetch even without a cooldown.
      for (const token of tokens.slice(30)) statuses.push((await callOperation(service.url, 'REST', 'listPlants', 0, token)).status);
      expect(new Set(statuses)).toEqual(new Set([401]));
      // AUTH_JWKS_COOLDOWN_S=1: one fetch, and one more per second the flood lasted.
      const cooldowns = Math.floor((performance.now() - started) / 1_000);
      expect(provider.fetches - fetchesBefore).toBeLessThanOrEqual(1 + cooldowns);
    });
  });
});

describe('a JWKS that does not answer when the service starts, then does', () => {
  let provider: IdentityProvider;
  let service: ServiceProcess;
  beforeAll(async () => {
    provider = await startIdentityProvider({ listening: false });
    service = await startService(serviceEnv(provider));
  });
  afterAll(async () => {
    await service.stop();
    await provider.close();
  });

  it('starts; answers JWTs 503 with Retry-After while static tokens work; serves JWTs once the keys arrive', async () => {
    const token = await provider.mint({ scope: 'plants:read' });
    for (const transport of ['REST', '/trpc'] as const) {
      const response = await callOperation(service.url, transport, 'listPlants', 0, token);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refusalOf(response)).toEqual({
        status: 503,
        message: "the identity provider's signing keys cannot be fetched, so the token cannot be checked: try again shortly",
        code: transport === 'REST' ? undefined : 'SERVICE_UNAVAILABLE',
      });
    }
    // Judged before the body, over REST and /trpc alike: a create whose body is not even JSON gets the same 503.
    for (const path of ['/plants', '/trpc/createPlant']) {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'text/plain' };
      const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: 'not JSON' });
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, STATIC_TOKEN)).status).toBe(200);
    expect(service.output()).toContain('the identity provider keys cannot be fetched');

    await provider.up();
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await callOperation(service.url, 'REST', 'listPlants', 0, token)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    expect(service.output()).toContain('the identity provider keys are fetched again');

    // Keys fetched: a kid the provider does not publish is now the token's fault, 401, not 503.
    const stranger = await provider.mint({}, { key: await makeSigningKey('key-unknown') });
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, stranger)).status).toBe(401);
  });

  it('keeps serving the keys it has while the JWKS is down again; an unknown kid then is 503', async () => {
    await provider.down();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const known = await provider.mint({ sub: 'known-key', scope: 'plants:read' });
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, known)).status).toBe(200);
    const stranger = await provider.mint({}, { key: await makeSigningKey('key-new-while-down') });
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, stranger)).status).toBe(503);
  });
});

describe('failed authentications with JWTs count towards AUTH_FAILURE_LIMIT', () => {
  it('refuses the address with 429 once its refused JWTs reach the limit', async () => {
    const provider = await startIdentityProvider();
    const service = await startService(serviceEnv(provider, { AUTH_FAILURE_LIMIT: '3' }));
    try {
      const expired = await provider.mint({ expiresIn: -60 });
      for (let attempt = 0; attempt < 3; attempt++)
        expect((await callOperation(service.url, 'REST', 'listPlants', 0, expired)).status).toBe(401);
      expect((await callOperation(service.url, 'REST', 'listPlants', 0, await provider.mint())).status).toBe(429);
    } finally {
      await service.stop();
      await provider.close();
    }
  });
});

describe('a service with static tokens alone', () => {
  // A loader that makes loading jose fail, from node_modules or from a bundle (whose modules keep the paths they came
  // from in comments): a service that loaded it could not start. No `?` or `#` in it: they would end the data URL.
  const refuseJose = [
    '--import',
    `data:text/javascript,import { register } from 'node:module'; register('data:text/javascript,export async function resolve(specifier, context, next) { if (specifier === "jose") throw new Error("jose was imported"); return next(specifier, context); } export async function load(url, context, next) { const loaded = await next(url, context); let text = ""; if (typeof loaded.source === "string") text = loaded.source; else if (loaded.source) text = new TextDecoder().decode(loaded.source); if (text.includes("node_modules/jose/")) throw new Error("jose was imported"); return loaded; }');`,
  ];

  it('never loads jose; one with AUTH_JWKS_URL does', async () => {
    const staticOnly = await startService({ MONGODB_URI: testMongoUri(), API_TOKENS: STATIC_TOKEN }, { nodeFlags: refuseJose });
    try {
      expect((await callOperation(staticOnly.url, 'REST', 'createPlant', freshId(), STATIC_TOKEN)).status).toBe(200);
      expect((await callOperation(staticOnly.url, '/trpc', 'listPlants', 0, STATIC_TOKEN)).status).toBe(200);
    } finally {
      await staticOnly.stop();
    }
    const provider = await startIdentityProvider({ listening: false });
    const withJwt = spawnService({ MONGODB_URI: testMongoUri(), ...provider.env() }, { nodeFlags: refuseJose });
    expect(await withJwt.exited()).toBe(1);
    expect(withJwt.output()).toContain('jose was imported');
  });
});

describe('a key set larger than the limit (256 KiB)', () => {
  const running: { provider?: IdentityProvider; service?: ServiceProcess } = {};
  beforeAll(async () => {
    running.provider = await startIdentityProvider();
    running.service = await startService(serviceEnv(running.provider));
  });
  afterAll(async () => {
    await running.service?.stop();
    await running.provider?.close();
  });

  it('is refused like a provider that does not answer: 503 with Retry-After, memory unmoved, keys already held still serve', async () => {
    const { provider, service } = running as Required<typeof running>;
    const known = await provider.mint({ scope: 'plants:read' });
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, known)).status).toBe(200);
    const peakBefore = await service.peakRssBytes();
    // 20 MB of key set, sent in chunks; a token with a kid the service lacks makes it fetch the set again, once per cooldown (1 s).
    provider.padding = 20 * 1024 * 1024;
    provider.published = [...provider.published, await makeSigningKey('key-new')];
    const fetchesBefore = provider.fetches;
    for (let round = 0; round < 3; round += 1) {
      // Past the cooldown of the last fetch, which would make an unknown kid the token's fault (401).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const stranger = await provider.mint({ scope: 'plants:read' }, { key: provider.published[1] });
      const response = await callOperation(service.url, round % 2 === 0 ? 'REST' : '/trpc', 'listPlants', 0, stranger);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refusalOf(response)).toMatchObject({
        status: 503,
        message: "the identity provider's signing keys cannot be fetched, so the token cannot be checked: try again shortly",
      });
    }
    expect(provider.fetches - fetchesBefore).toBeGreaterThanOrEqual(2);
    // Reading 20 MB whole would have cost the process a hundred MiB or more at each fetch.
    expect((await service.peakRssBytes()) - peakBefore).toBeLessThan(30 * 1024 * 1024);
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, known)).status).toBe(200);
    expect((await callOperation(service.url, 'REST', 'listPlants', 0, STATIC_TOKEN)).status).toBe(200);
    expect(service.output()).toContain('the key set URL answered more than 262144 bytes');

    // Back to a key set of a normal size: the new key is fetched and serves.
    provider.padding = 0;
    const newcomer = await provider.mint({ scope: 'plants:read' }, { key: provider.published[1] });
    const deadline = Date.now() + 8_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await callOperation(service.url, 'REST', 'listPlants', 0, newcomer)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  }, 40_000);
});

describe('bad AUTH_* configuration stops start-up, naming the variable', () => {
  it.each([
    [{ AUTH_JWKS_URL: 'ftp://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }, 'AUTH_JWKS_URL: must be the http(s) URL'],
    [{ AUTH_JWKS_URL: 'https://id.example/jwks' }, 'AUTH_ISSUER and AUTH_AUDIENCE must be set when AUTH_JWKS_URL is set'],
    [
      { AUTH_JWKS_URL: 'https://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a', AUTH_CLOCK_SKEW_S: '-1' },
      'AUTH_CLOCK_SKEW_S: must be a whole number of seconds from 0 to 300',
    ],
    [{ API_TOKEN_HASHES: 'ci not-a-sha256-secret' }, 'API_TOKEN_HASHES: item 1 is not'],
    [
      { NODE_ENV: 'production', AUTH_JWKS_URL: 'http://id.example/jwks', AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' },
      'AUTH_JWKS_URL must be an https URL when NODE_ENV=production',
    ],
  ])('%o', async (env, message) => {
    const spawned = spawnService({ MONGODB_URI: testMongoUri(), ...env });
    expect(await spawned.exited()).toBe(1);
    expect(spawned.output()).toContain(message);
    expect(spawned.output()).not.toContain('not-a-sha256-secret');
  });
});

/** The token with its payload swapped for one granting more, the signature kept. */
function tamperedToken(token: string): string {
  const [header, , signature] = token.split('.');
  const payload = Buffer.from(JSON.stringify({ ...goodClaims(), sub: 'client-1', scope: 'plants:read plants:write' })).toString(
    'base64url',
  );
  return `${header}.${payload}.${signature}`;
}
