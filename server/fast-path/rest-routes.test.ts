import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, startTestApp, type TestApp } from '../../tests/helpers/app.js';
import { storeByPlantName } from '../../tests/helpers/scripted-store.js';

/**
 * REST requests are answered by server/fast-path/rest-routes.ts, which hands trpc-to-openapi's
 * handler the shims of server/fast-path/openapi-shims.ts; FAST_PATH=off mounts trpc-to-openapi's
 * own Fastify plugin instead. Both must answer every request alike: the same status, the same
 * headers a client reads, the same body.
 */
let fastPath: TestApp;
let stockAdapter: TestApp;
beforeAll(async () => {
  fastPath = await startTestApp({ env: { FAST_PATH: 'on' }, overrides: { store: storeByPlantName } });
  stockAdapter = await startTestApp({ env: { FAST_PATH: 'off' }, overrides: { store: storeByPlantName } });
});
afterAll(async () => {
  await fastPath.close();
  await stockAdapter.close();
});

const token = authHeaders();
const post = (url: string, payload: string, headers: Record<string, string> = token): InjectOptions => ({ method: 'POST', url, payload, headers });
const cases: [string, InjectOptions][] = [
  ['a new plant', post('/plants', '{"id":1,"name":"Monstera","tag":"tropical"}')],
  ['a plant without tag', post('/plants', '{"id":2,"name":"Fern"}')],
  ['a body with a byte-order mark', post('/plants', '\uFEFF{"id":3,"name":"Fern"}')],
  ['no token', post('/plants', '{"id":4,"name":"Fern"}', { 'content-type': 'application/json' })],
  ['a wrong token', post('/plants', '{"id":5,"name":"Fern"}', authHeaders('not-a-token'))],
  ['a string id', post('/plants', '{"id":"6","name":"Fern"}')],
  ['an unknown field', post('/plants', '{"id":7,"name":"Fern","colour":"green"}')],
  ['invalid JSON', post('/plants', '{"id":8,')],
  ['an empty body', post('/plants', '')],
  ['an array body', post('/plants', '[1,2]')],
  ['a JSON string body', post('/plants', '"Fern"')],
  ['a text/plain body', post('/plants', '{"id":9,"name":"Fern"}', { ...token, 'content-type': 'text/plain' })],
  ['a content type with parameters', post('/plants', '{"id":10,"name":"Fern"}', { ...token, 'content-type': 'Application/JSON; charset=utf-8' })],
  ['a taken id', post('/plants', '{"id":11,"name":"taken"}')],
  ['a database outage', post('/plants', '{"id":12,"name":"database down"}')],
  ['a failing store', post('/plants', '{"id":13,"name":"bug"}')],
  ['an output that breaks the schema', post('/plants', '{"id":14,"name":"bad output"}')],
  ['a query string', post('/plants?dry=run', '{"id":15,"name":"Fern"}')],
  ['a trailing slash', post('/plants/', '{"id":16,"name":"Fern"}')],
  ['an upper-case path', post('/PLANTS', '{"id":17,"name":"Fern"}')],
  ['POST to an unknown path', post('/pots', '{"id":18,"name":"Fern"}')],
  ['POST to an unknown path without a body', { method: 'POST', url: '/pots', headers: { authorization: token.authorization } }],
  ['GET on the operation path', { method: 'GET', url: '/plants', headers: token }],
  ['GET on an unknown path', { method: 'GET', url: '/pots?size=2', headers: token }],
  ['DELETE on an unknown path', { method: 'DELETE', url: '/pots/1', headers: token }],
  ['HEAD on the operation path', { method: 'HEAD', url: '/plants', headers: token }],
  ['HEAD on an unknown path', { method: 'HEAD', url: '/pots', headers: token }],
];

/** What a client reads of an answer; the request id, different on each app, is replaced by a mark. */
function answerOf(response: LightMyRequestResponse) {
  const { 'content-type': contentType, 'www-authenticate': challenge, 'retry-after': retryAfter, 'x-request-id': requestId } = response.headers;
  const body = typeof requestId === 'string' ? response.body.replaceAll(requestId, '<request id>') : response.body;
  return { status: response.statusCode, contentType, challenge, retryAfter, body };
}

describe('the fast REST path answers as trpc-to-openapi\'s Fastify plugin does', () => {
  it('compares two different adapters: only the fast path mounts the operation as a route of its own', () => {
    expect(fastPath.app.hasRoute({ method: 'POST', url: '/plants' })).toBe(true);
    expect(stockAdapter.app.hasRoute({ method: 'POST', url: '/plants' })).toBe(false);
  });

  it.each(cases)('%s', async (_case, request) => {
    const fast = answerOf(await fastPath.app.inject(request));
    const stock = answerOf(await stockAdapter.app.inject(request));
    expect(fast).toEqual(stock);
    if (request.method !== 'HEAD') expect(fast.body).not.toBe('');
  });
});
