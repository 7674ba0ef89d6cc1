import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, postPlant, startTestApp, type TestApp } from '../helpers/app.js';

const ALLOWED = 'https://garden.example';

let testApp: TestApp;
let noOrigins: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { CORS_ORIGINS: `${ALLOWED}, https://other.example` } });
  noOrigins = await startTestApp({ env: { CORS_ORIGINS: '' } });
});
afterAll(async () => {
  await testApp.close();
  await noOrigins.close();
});

const preflight = (origin: string, app = testApp.app, url = '/plants') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

describe('CORS', () => {
  it('answers a preflight for POST /plants with an Authorization header from a listed origin', async () => {
    const response = await preflight(ALLOWED);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
  });

  it('lets a browser PATCH with If-Match and read the ETag', async () => {
    const response = await testApp.app.inject({
      method: 'OPTIONS',
      url: '/plants/1',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, if-match',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(String(response.headers['access-control-allow-methods']).split(/, */)).toContain('PATCH');
    expect(String(response.headers['access-control-allow-headers']).toLowerCase().split(/, */)).toEqual(
      expect.arrayContaining(['if-match', 'if-none-match']),
    );
    const created = await postPlant(testApp.app, { id: 3, name: 'x' }, { ...authHeaders(), origin: ALLOWED });
    expect(created.headers.etag).toMatch(/^"/);
    expect(String(created.headers['access-control-expose-headers']).split(/, */)).toEqual(expect.arrayContaining(['etag', 'accept-patch']));
  });

  it("lets a browser use tRPC's links: the streaming one's header allowed, and every answer varying by Origin", async () => {
    const streamPreflight = await testApp.app.inject({
      method: 'OPTIONS',
      url: '/trpc/getPlant?batch=1',
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, trpc-accept' },
    });
    expect(streamPreflight.statusCode).toBe(204);
    expect(String(streamPreflight.headers['access-control-allow-headers']).toLowerCase().split(/, */)).toContain('trpc-accept');
    for (const headers of [{}, { 'trpc-accept': 'application/jsonl' }]) {
      const answer = await testApp.app.inject({
        method: 'GET',
        url: `/trpc/listPlants?batch=1&input=${encodeURIComponent('{"0":{}}')}`,
        headers: { ...authHeaders(), origin: ALLOWED, ...headers },
      });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(answer.headers.vary).toLowerCase().split(/, */)).toContain('origin');
    }
  });

  it("varies by Origin on tRPC's own refusals, which it writes as JSON labelled text/plain", async () => {
    const refusals = [
      // A streaming answer asked of a call that is no batch, and a batch that mixes queries and mutations.
      { url: '/trpc/createPlant', headers: { 'trpc-accept': 'application/jsonl' }, payload: '{"id":1,"name":"x"}' },
      { url: '/trpc/getPlant,createPlant?batch=1', headers: {}, payload: '{"0":{"id":1},"1":{"id":1,"name":"x"}}' },
    ];
    for (const { url, headers, payload } of refusals) {
      const answer = await testApp.app.inject({
        method: 'POST',
        url,
        headers: { ...authHeaders(), 'content-type': 'application/json', origin: ALLOWED, ...headers },
        payload,
      });
      expect(answer.statusCode).toBe(400);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(answer.headers.vary).toLowerCase().split(/, */)).toStrictEqual(['origin', 'trpc-accept', 'accept']);
    }
  });

  it('lets a listed origin read the answer of the real request', async () => {
    const response = await postPlant(testApp.app, { id: 1, name: 'x' }, { ...authHeaders(), origin: ALLOWED });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('lets a listed origin read the 400 of a query it spelt wrong by hand', async () => {
    for (const url of ['/plants?tag=50%off', '/trpc/listPlants?input=%7B%7D%ff']) {
      const response = await testApp.app.inject({ method: 'GET', url, headers: { ...authHeaders(), origin: ALLOWED } });
      expect(response.statusCode).toBe(400);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(response.body).toContain('the request query is not valid: each % must start an escape (%XX) of UTF-8 bytes');
    }
  });

  it('answers an OPTIONS that is no preflight as without CORS: 405 with Allow, or 404; a preflight to any path 204', async () => {
    const notPreflights = [{ origin: ALLOWED }, { 'access-control-request-method': 'POST' }, {}, { origin: 'https://evil.example' }];
    for (const [url, status] of [
      ['/plants', 405],
      ['/plants/1', 405],
      ['/nope', 404],
    ] as const) {
      const withoutCors = await noOrigins.app.inject({ method: 'OPTIONS', url });
      expect(withoutCors.statusCode).toBe(status);
      for (const headers of notPreflights) {
        const response = await testApp.app.inject({ method: 'OPTIONS', url, headers });
        expect(response.statusCode).toBe(status);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(response.headers.allow).toBe(withoutCors.headers.allow);
        expect(response.headers['accept-patch']).toBe(withoutCors.headers['accept-patch']);
        expect(response.json()).toStrictEqual(withoutCors.json());
      }
    }
    expect((await testApp.app.inject({ method: 'OPTIONS', url: '/plants' })).headers.allow).toBe('GET, HEAD, POST');
    // RFC 5789 section 3.1: the OPTIONS answer of a path that takes PATCH says which patch documents it takes.
    const onePlant = await testApp.app.inject({ method: 'OPTIONS', url: '/plants/1' });
    expect(onePlant.headers['accept-patch']).toBe('application/merge-patch+json, application/json');
    const trpc = await testApp.app.inject({ method: 'OPTIONS', url: '/trpc/createPlant', headers: { origin: ALLOWED } });
    expect(trpc.statusCode).toBe(405);
    expect(trpc.headers.allow).toBe('GET, HEAD, POST');
    expect(trpc.json()).toMatchObject({ error: { data: { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 } } });
    for (const url of ['/trpc/createPlant', '/healthz', '/nope']) expect((await preflight(ALLOWED, testApp.app, url)).statusCode).toBe(204);
  });

  it('gives an unlisted origin no CORS headers', async () => {
    const response = await preflight('https://evil.example');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const post = await postPlant(testApp.app, { id: 2, name: 'x' }, { ...authHeaders(), origin: 'https://evil.example' });
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without CORS_ORIGINS, answers a preflight 405 in the Error shape and adds no CORS header anywhere', async () => {
    const response = await preflight(ALLOWED, noOrigins.app);
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.json()).toEqual({ error: 405, message: 'OPTIONS is not allowed on /plants: it answers GET, HEAD, POST' });
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const post = await postPlant(noOrigins.app, { id: 3, name: 'x' }, { ...authHeaders(), origin: ALLOWED });
    expect(post.statusCode).toBe(200);
    expect(Object.keys(post.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
