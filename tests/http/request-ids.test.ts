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

  it("count on across the counter's parts, and draw a new prefix after 2^48 ids", () => {
    const counterOf = (id: string) => BigInt(`0x${id.slice(-12)}`);
    const carrying = createRequestIdGenerator({ high: 41, low: 16 ** 7 - 2 });
    const ids = [carrying(), carrying(), carrying(), carrying()];
    expect(ids.map(counterOf)).toEqual([0, 1, 2, 3].map((step) => 41n * 16n ** 7n + 16n ** 7n - 2n + BigInt(step)));
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1);

    const wrapping = createRequestIdGenerator({ high: 16 ** 5 - 1, low: 16 ** 7 - 1 });
    const [last, first] = [wrapping(), wrapping()];
    expect([last, first].map(counterOf)).toEqual([2n ** 48n - 1n, 0n]);
    expect(first.slice(0, 24)).not.toBe(last.slice(0, 24));
    for (const id of [...ids, last, first]) expect(id).toMatch(UUID_V8);
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
