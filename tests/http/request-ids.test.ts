import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestIdGenerator } from '../../server/http/request-ids.js';
import { authHeaders, startTestApp, type TestApp } from '../helpers/app.js';

/** A UUID of version 8 (RFC 9562), variant bits 10. */
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are UUIDs, each different, and differ between generators (apps, instances)', () => {
    const first = createRequestIdGenerator();
    const second = createRequestIdGenerator();
    const ids = Array.from({ length: 5_000 }, (_, index) => (index % 2 === 0 ? first() : second()));
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe('in the app', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await startTestApp();
    });
    afterAll(async () => {
      await testApp.close();
    });

    it('name every answer in X-Request-Id, a different id each time, errors included', async () => {
      const answers = await Promise.all([
        testApp.app.inject({ method: 'GET', url: '/plants', headers: authHeaders() }),
        testApp.app.inject({ method: 'GET', url: '/plants' }),
        testApp.app.inject({ method: 'GET', url: '/no-such-route' }),
      ]);
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 404]);
      const ids = answers.map((answer) => answer.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(UUID_V8);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});
