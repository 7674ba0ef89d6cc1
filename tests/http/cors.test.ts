import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, postPlant, startTestApp, type TestApp } from '../helpers/app.js';

const ALLOWED = 'https://garden.example';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { CORS_ORIGINS: `${ALLOWED}, https://other.example` } });
});
afterAll(async () => {
  await testApp.close();
});

const preflight = (origin: string) =>
  testApp.app.inject({
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
});
