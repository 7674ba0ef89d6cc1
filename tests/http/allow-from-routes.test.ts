// A 405's Allow follows from the routes the app has: a route added by a plugin of its own, declared nowhere else,
// answers 405 with its methods, over HTTP, as the service's own routes do.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import { scriptedStore } from '../helpers/scripted-store.js';

let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  // With CORS, whose OPTIONS route answers preflights on every path.
  app = await buildApp(testConfig({ CORS_ORIGINS: 'https://shop.example' }), { store: scriptedStore({}) });
  await app.register(async (extra) => {
    extra.get('/extra', async () => ({ extra: true }));
  });
  await app.register(
    async (nested) => {
      nested.delete('/leaf/:id', async () => ({ deleted: true }));
    },
    { prefix: '/nested' },
  );
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app.close();
});

async function send(method: string, path: string) {
  const response = await fetch(`${url}${path}`, { method });
  return { status: response.status, allow: response.headers.get('allow'), body: await response.json() };
}

describe('a route added by a plugin of its own', () => {
  it('answers its own method', async () => {
    expect(await send('GET', '/extra')).toEqual({ status: 200, allow: null, body: { extra: true } });
    expect(await send('DELETE', '/nested/leaf/7')).toEqual({ status: 200, allow: null, body: { deleted: true } });
  });

  it('answers 405 with Allow for another method, its prefix included', async () => {
    expect(await send('POST', '/extra')).toEqual({
      status: 405,
      allow: 'GET, HEAD',
      body: { error: 405, message: 'POST is not allowed on /extra: it answers GET, HEAD' },
    });
    expect(await send('GET', '/nested/leaf/7')).toEqual({
      status: 405,
      allow: 'DELETE',
      body: { error: 405, message: 'GET is not allowed on /nested/leaf/7: it answers DELETE' },
    });
  });

  it('leaves other paths 404: neither the REST catch-all nor the CORS preflight route counts', async () => {
    expect(await send('POST', '/extra/more')).toEqual({
      status: 404,
      allow: null,
      body: { error: 404, message: 'no route for POST /extra/more' },
    });
    expect(await send('PROPFIND', '/leaf/7')).toEqual({
      status: 404,
      allow: null,
      body: { error: 404, message: 'no route for PROPFIND /leaf/7' },
    });
  });
});
