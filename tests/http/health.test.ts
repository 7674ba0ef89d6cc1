import { describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { testConfig } from '../helpers/app.js';

describe('health probes', () => {
  it('/healthz and /readyz answer 200 while MongoDB answers', async () => {
    const app = await buildApp(testConfig());
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toStrictEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toStrictEqual({ status: 'ready' });
    } finally {
      await app.close();
    }
  });

  it('/readyz answers 503 with an Error body while MongoDB does not, and /healthz stays 200', async () => {
    const app = await buildApp(testConfig({ MONGODB_URI: 'mongodb://127.0.0.1:9/plantstore', MONGODB_TIMEOUT_MS: '300' }));
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toStrictEqual({ error: 503, message: 'not ready: the plant database does not answer' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
