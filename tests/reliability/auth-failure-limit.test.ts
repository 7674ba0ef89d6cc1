// Failed authentications per client address: AUTH_FAILURE_LIMIT per AUTH_FAILURE_WINDOW_MS, then 429.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { authHeaders, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';

const post = (app: FastifyInstance, remoteAddress: string, token: string, id = 1) =>
  app.inject({ method: 'POST', url: '/plants', remoteAddress, headers: authHeaders(token), payload: { id, name: 'Fern' } });

describe('with AUTH_FAILURE_LIMIT=3 per AUTH_FAILURE_WINDOW_MS=400', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_MS: '400' } });
  });
  afterAll(async () => {
    await testApp.close();
  });

  it('answers 429 with the Error body and Retry-After to the address after 3 failures, even with a good token', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await post(testApp.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
    for (const token of ['wrong', TEST_TOKEN]) {
      const refused = await post(testApp.app, '10.0.0.1', token);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toStrictEqual({ error: 429, message: 'too many failed authentications from this address: try again in 1 s' });
    }
    const trpc = await testApp.app.inject({
      method: 'POST',
      url: '/trpc/createPlant',
      remoteAddress: '10.0.0.1',
      headers: authHeaders(),
      payload: { id: 1, name: 'Fern' },
    });
    expect(trpc.statusCode).toBe(429);
    expect(trpc.json()).toMatchObject({
      error: {
        message: expect.stringContaining('too many failed authentications') as unknown,
        data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 },
      },
    });
    expect(await testApp.plants.countDocuments()).toBe(0);
  });

  it('keeps serving what needs no token to the refused address: probes, OpenAPI document, docs', async () => {
    const address = '10.0.0.4';
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await post(testApp.app, address, 'wrong')).statusCode).toBe(401);
    expect((await post(testApp.app, address, TEST_TOKEN)).statusCode).toBe(429);
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      const response = await testApp.app.inject({ method: 'GET', url, remoteAddress: address });
      expect([url, response.statusCode]).toStrictEqual([url, 200]);
    }
  });

  it('counts an IPv6 client by its /64, as one client usually holds a whole /64', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect((await post(testApp.app, `2001:db8:1:2::${attempt + 1}`, 'wrong')).statusCode).toBe(401);
    expect((await post(testApp.app, '2001:db8:1:2:ffff::9', TEST_TOKEN)).statusCode).toBe(429);
    expect((await post(testApp.app, '2001:db8:1:3::1', TEST_TOKEN, 5)).statusCode).toBe(200);
  });

  it('serves other addresses meanwhile', async () => {
    expect((await post(testApp.app, '10.0.0.2', TEST_TOKEN, 2)).statusCode).toBe(200);
  });

  it('serves the address again once the window has passed', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await post(testApp.app, '10.0.0.3', 'wrong');
    expect((await post(testApp.app, '10.0.0.3', TEST_TOKEN, 3)).statusCode).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await post(testApp.app, '10.0.0.3', TEST_TOKEN, 3)).statusCode).toBe(200);
  });
});

describe('by default', () => {
  it('is off: failures never turn into 429', async () => {
    const testApp = await startTestApp();
    try {
      for (let attempt = 0; attempt < 30; attempt += 1) expect((await post(testApp.app, '10.0.0.9', 'wrong')).statusCode).toBe(401);
      expect((await post(testApp.app, '10.0.0.9', TEST_TOKEN)).statusCode).toBe(200);
    } finally {
      await testApp.close();
    }
  });

  it.each(['0', '-1', 'many', '2.5'])('refuses AUTH_FAILURE_LIMIT=%s', (value) => {
    expect(() => loadConfig({ AUTH_FAILURE_LIMIT: value })).toThrow('AUTH_FAILURE_LIMIT');
  });

  it('reads the limit and window', () => {
    expect(loadConfig({ AUTH_FAILURE_LIMIT: '5', AUTH_FAILURE_WINDOW_MS: '30000' }).authFailureLimit).toStrictEqual({
      max: 5,
      windowMs: 30_000,
    });
    expect(loadConfig({}).authFailureLimit).toBeUndefined();
  });
});

describe('behind a proxy, with TRUST_PROXY naming it', () => {
  const PROXY = '10.0.0.100';
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp({ env: { AUTH_FAILURE_LIMIT: '2', TRUST_PROXY: PROXY } });
  });
  afterAll(async () => {
    await testApp.close();
  });
  const postVia = (remoteAddress: string, client: string, token: string, id = 1) =>
    testApp.app.inject({
      method: 'POST',
      url: '/plants',
      remoteAddress,
      headers: { ...authHeaders(token), 'x-forwarded-for': client },
      payload: { id, name: 'Fern' },
    });

  it('counts failures per client address the proxy forwards, not per proxy', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) expect((await postVia(PROXY, '203.0.113.1', 'wrong')).statusCode).toBe(401);
    expect((await postVia(PROXY, '203.0.113.1', TEST_TOKEN)).statusCode).toBe(429);
    expect((await postVia(PROXY, '203.0.113.2', TEST_TOKEN, 4)).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For from anyone else, so a client cannot dodge the limit by forging it', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1)
      expect((await postVia('10.0.0.200', `198.51.100.${attempt}`, 'wrong')).statusCode).toBe(401);
    expect((await postVia('10.0.0.200', '198.51.100.9', TEST_TOKEN)).statusCode).toBe(429);
  });
});
