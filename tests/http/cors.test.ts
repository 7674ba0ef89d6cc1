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

const preflight = (origin: string, app = testApp.app) =>
  app.inject({
    method: 'OPTIONS',
    url: '/plants',
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

  it('lets a listed origin read the answer of the real request', async () => {
    const response = await postPlant(testApp.app, { id: 1, name: 'x' }, { ...authHeaders(), origin: ALLOWED });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('gives an unlisted origin no CORS headers', async () => {
    const response = await preflight('https://evil.example');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const post = await postPlant(testApp.app, { id: 2, name: 'x' }, { ...authHeaders(), origin: 'https://evil.example' });
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without CORS_ORIGINS, answers a preflight 404 in the Error shape and adds no CORS header anywhere', async () => {
    const response = await preflight(ALLOWED, noOrigins.app);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 404, message: 'no route for OPTIONS /plants' });
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const post = await postPlant(noOrigins.app, { id: 3, name: 'x' }, { ...authHeaders(), origin: ALLOWED });
    expect(post.statusCode).toBe(200);
    expect(Object.keys(post.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
