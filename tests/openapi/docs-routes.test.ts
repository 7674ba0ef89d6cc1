// /docs over HTTP: open to read, everything served from here, the same document as
// /openapi.json, and unknown paths under it still answered with the one Error shape.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';
import { fetchDocument } from '../helpers/openapi-reading.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApp(testConfig());
});
afterAll(async () => {
  await app.close();
});

describe('GET /docs', () => {
  it('serves the Swagger UI page without a token', async () => {
    for (const url of ['/docs', '/docs/']) {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('<div id="swagger-ui">');
      expect(response.headers['content-security-policy']).toMatch(/default-src 'self'.*connect-src 'self'/);
    }
  });

  it('loads every script and stylesheet from this server', async () => {
    const html = (await app.inject({ url: '/docs' })).body;
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      expect(asset, asset).toMatch(/^\/docs\/static\//);
      expect((await app.inject({ url: asset })).statusCode, asset).toBe(200);
    }
  });

  it('shows the /openapi.json document, with a server relative to the page', async () => {
    const shown = await fetchDocument(app, '/docs/json');
    expect(shown.servers).toEqual([{ url: '/' }]);
    expect(shown).toEqual(await fetchDocument(app));
  });

  it.each(['/docs/nope', '/docs/static/missing.js', '/docs/static/..%2f..%2fpackage.json', '/docs/static/../../package.json'])(
    'answers %s with the Error shape',
    async (url) => {
      const response = await app.inject({ url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 404, message: expect.stringMatching(/^no route for GET \//) as unknown });
    },
  );
});
