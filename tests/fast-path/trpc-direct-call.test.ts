import type * as FastifyAdapter from '@trpc/server/adapters/fastify';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authHeaders, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { BAD_OUTPUT_ID, DOWN_ID, FAILING_ID, storeByRequest } from '../helpers/scripted-store.js';

/**
 * The common tRPC request is answered by packages/fast-path/src/trpc-direct-call.ts, not by tRPC's own
 * Fastify handler; a query parameter of no meaning to tRPC (`via=trpc`) sends the same request to
 * tRPC's handler. Both must answer alike: the same status, the same headers a client reads, the
 * same body, byte for byte. Calls to tRPC's handler are counted, so a direct call that quietly
 * handed every request to tRPC would fail here too.
 */
const stock = vi.hoisted(() => ({ calls: 0 }));
vi.mock('@trpc/server/adapters/fastify', async (importOriginal) => {
  const adapter = await importOriginal<typeof FastifyAdapter>();
  const fastifyRequestHandler: typeof adapter.fastifyRequestHandler = (options) => {
    stock.calls += 1;
    return adapter.fastifyRequestHandler(options);
  };
  return { ...adapter, fastifyRequestHandler };
});

const ORIGIN = 'https://app.example';
let testApp: TestApp;
beforeAll(async () => {
  // The fast path whatever FAST_PATH the run has: with it off there would be nothing to compare.
  // With CORS on, so that each answer's Vary has the app's `Origin` to keep.
  testApp = await startTestApp({ env: { FAST_PATH: 'on', CORS_ORIGINS: ORIGIN }, overrides: { store: storeByRequest } });
});
afterAll(async () => {
  await testApp.close();
});

const token = authHeaders();
const bearer = { authorization: `Bearer ${TEST_TOKEN}` };
// A call without a valid token, a body that is not JSON, or a method other than GET and POST is answered before either
// handler runs.
const mutationCases: [string, string, string, Record<string, string>][] = [
  ['a new plant', 'createPlant', '{"id":1,"name":"Monstera","tag":"tropical"}', token],
  ['a plant without tag', 'createPlant', '{"id":2,"name":"Fern"}', token],
  ['a body with a byte-order mark', 'createPlant', '\uFEFF{"id":3,"name":"Fern"}', token],
  ['a string id', 'createPlant', '{"id":"6","name":"Fern"}', token],
  ['an unknown field', 'createPlant', '{"id":7,"name":"Fern","colour":"green"}', token],
  ['invalid JSON', 'createPlant', '{"id":8,', token],
  ['an empty body', 'createPlant', '', token],
  ['an array body', 'createPlant', '[1,2]', token],
  [
    'a content type with parameters',
    'createPlant',
    '{"id":9,"name":"Fern"}',
    { ...token, 'content-type': 'Application/JSON; charset=utf-8' },
  ],
  ['a browser origin', 'createPlant', '{"id":14,"name":"Fern"}', { ...token, origin: ORIGIN }],
  ['a taken id', 'createPlant', '{"id":10,"name":"taken"}', token],
  ['a database outage', 'createPlant', '{"id":11,"name":"database down"}', token],
  ['a failing store', 'createPlant', '{"id":12,"name":"bug"}', token],
  ['an output that breaks the schema', 'createPlant', '{"id":13,"name":"bad output"}', token],
  ['an id beyond 2^53', 'createPlant', '{"id":9223372036854775807,"name":"Fern"}', token],
  ['delete: a stored plant', 'deletePlant', '{"id":1}', token],
  ['delete: an id beyond 2^53', 'deletePlant', '{"id":9007199254740993}', token],
  ['delete: no such plant', 'deletePlant', '{"id":42}', token],
  ['delete: an id beyond int64', 'deletePlant', '{"id":9223372036854775808}', token],
  ['delete: a string id', 'deletePlant', '{"id":"abc"}', token],
  ['delete: an unknown field', 'deletePlant', '{"id":1,"force":true}', token],
  ['delete: no input', 'deletePlant', '', token],
  ['delete: a database outage', 'deletePlant', `{"id":${DOWN_ID}}`, token],
  ['delete: a failing store', 'deletePlant', `{"id":${FAILING_ID}}`, token],
  ['update: a new name', 'updatePlant', '{"id":1,"name":"Swiss cheese plant"}', token],
  ['update: the tag removed', 'updatePlant', '{"id":1,"tag":null}', token],
  ['update: an id beyond 2^53', 'updatePlant', '{"id":9007199254740993,"tag":"climber"}', token],
  ['update: ifMatch *', 'updatePlant', '{"id":1,"name":"x","ifMatch":"*"}', token],
  ['update: ifMatch that matches none (412)', 'updatePlant', '{"id":1,"name":"x","ifMatch":"\\"stale\\""}', token],
  ['update: an unreadable ifMatch', 'updatePlant', '{"id":1,"name":"x","ifMatch":"stale"}', token],
  ['update: If-Match as a header', 'updatePlant', '{"id":1,"name":"x"}', { ...token, 'if-match': '"stale"' }],
  ['update: no such plant', 'updatePlant', '{"id":42,"name":"x"}', token],
  ['update: a null name', 'updatePlant', '{"id":1,"name":null}', token],
  ['update: an unknown field', 'updatePlant', '{"id":1,"colour":"green"}', token],
  ['update: a database outage', 'updatePlant', `{"id":${DOWN_ID},"name":"x"}`, token],
  ['a query sent as POST (405)', 'getPlant', '{"id":1}', token],
  ['a list sent as POST (405)', 'listPlants', '', token],
];

/** `input` undefined: no query string at all. */
const queryCases: [string, string, string | undefined, Record<string, string>][] = [
  ['list: no input', 'listPlants', undefined, bearer],
  ['list: an empty input parameter', 'listPlants', '', bearer],
  ['list: a limit', 'listPlants', '{"limit":2}', bearer],
  ['list: a limit and after', 'listPlants', '{"limit":2,"after":1}', bearer],
  ['list: after an id beyond 2^53, as a JSON number', 'listPlants', '{"after":9007199254740993}', bearer],
  ['list: after the least int64', 'listPlants', '{"limit":1,"after":-9223372036854775808}', bearer],
  ['list: limit and after as text', 'listPlants', '{"limit":"3","after":"2"}', bearer],
  ['list: limit 0', 'listPlants', '{"limit":0}', bearer],
  ['list: limit 1001', 'listPlants', '{"limit":1001}', bearer],
  ['list: limit 1.5', 'listPlants', '{"limit":1.5}', bearer],
  ['list: limit abc', 'listPlants', '{"limit":"abc"}', bearer],
  ['list: after beyond int64', 'listPlants', '{"after":9223372036854775808}', bearer],
  ['list: an unknown parameter', 'listPlants', '{"limt":10}', bearer],
  ['list: two unknown parameters', 'listPlants', '{"limt":10,"aftr":1}', bearer],
  ['list: null input', 'listPlants', 'null', bearer],
  ['list: an array input', 'listPlants', '[1]', bearer],
  ['list: input that is not JSON', 'listPlants', '{"limit":', bearer],
  ['list: input with a byte-order mark', 'listPlants', '\uFEFF{"limit":1}', bearer],
  ['list: a database outage', 'listPlants', `{"after":${DOWN_ID}}`, bearer],
  ['list: a failing store', 'listPlants', `{"after":${FAILING_ID}}`, bearer],
  ['list: by tag', 'listPlants', '{"tag":"tropical"}', bearer],
  ['list: by a tag too long', 'listPlants', `{"tag":"${'x'.repeat(101)}"}`, bearer],
  ['list: a JSON content type', 'listPlants', '{"limit":1}', token],
  ['get: found', 'getPlant', '{"id":1}', bearer],
  ['get: an id beyond 2^53, as a JSON number', 'getPlant', '{"id":9007199254740993}', bearer],
  ['get: the greatest int64', 'getPlant', '{"id":9223372036854775807}', bearer],
  ['get: the least int64', 'getPlant', '{"id":-9223372036854775808}', bearer],
  ['get: an id as text', 'getPlant', '{"id":"9223372036854775807"}', bearer],
  ['get: an id written with an exponent', 'getPlant', '{"id":9.007199254740993e15}', bearer],
  ['get: not found', 'getPlant', '{"id":42}', bearer],
  ['get: a bad id', 'getPlant', '{"id":"abc"}', bearer],
  ['get: a fractional id', 'getPlant', '{"id":1.5}', bearer],
  ['get: an id beyond int64', 'getPlant', '{"id":9223372036854775808}', bearer],
  ['get: no input', 'getPlant', undefined, bearer],
  ['get: a database outage', 'getPlant', `{"id":${DOWN_ID}}`, bearer],
  ['get: a failing store', 'getPlant', `{"id":${FAILING_ID}}`, bearer],
  ['get: an output that breaks the schema', 'getPlant', `{"id":${BAD_OUTPUT_ID}}`, bearer],
  ['get: a browser origin', 'getPlant', '{"id":1}', { ...bearer, origin: ORIGIN }],
  ['get: not found, from a browser origin', 'getPlant', '{"id":42}', { ...bearer, origin: ORIGIN }],
  ['a mutation sent as GET (405)', 'deletePlant', '{"id":1}', bearer],
  ['a create sent as GET (405)', 'createPlant', undefined, bearer],
];

/** Every header but the date and the request id, which differ between any two answers. */
const withoutDateAndId = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date' && name !== 'x-request-id'));

/** What a client reads of an answer, and whether tRPC's own handler gave it. */
async function answer(request: InjectOptions) {
  const stockCallsBefore = stock.calls;
  const response = await testApp.app.inject(request);
  const headers = withoutDateAndId(response.headers);
  // A 500 names its own request's id: the same answer names another request's.
  const body = response.body.replaceAll(String(response.headers['x-request-id']), '<this request>');
  return {
    answer: { status: response.statusCode, headers, body },
    byStock: stock.calls > stockCallsBefore,
  };
}

/** The request as the direct call takes it, and the same request with `via=trpc` for tRPC's handler. */
async function expectSameAnswers(direct: InjectOptions, viaTrpc: InjectOptions) {
  const fast = await answer(direct);
  const stockAnswer = await answer(viaTrpc);
  expect(stockAnswer.byStock).toBe(true);
  expect(fast.byStock).toBe(false);
  expect(fast.answer).toEqual(stockAnswer.answer);
  expect(fast.answer.headers['content-type']).toBe('application/json');
  expect(JSON.parse(fast.answer.body)).toBeTypeOf('object');
  return fast.answer;
}

describe('the direct tRPC call answers as tRPC does', () => {
  it.each(mutationCases)('POST, %s', async (_case, path, payload, headers) => {
    await expectSameAnswers(
      { method: 'POST', url: `/trpc/${path}`, payload, headers },
      { method: 'POST', url: `/trpc/${path}?via=trpc`, payload, headers },
    );
  });

  it.each(queryCases)('GET, %s', async (_case, path, input, headers) => {
    const url = `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(input)}`}`;
    await expectSameAnswers(
      { method: 'GET', url, headers },
      { method: 'GET', url: `${url}${input === undefined ? '?' : '&'}via=trpc`, headers },
    );
  });

  it('writes ids beyond 2^53 exactly, and says which method a procedure takes', async () => {
    const list = await expectSameAnswers(
      { method: 'GET', url: `/trpc/listPlants?input=${encodeURIComponent('{"after":9007199254740993}')}`, headers: bearer },
      { method: 'GET', url: `/trpc/listPlants?input=${encodeURIComponent('{"after":9007199254740993}')}&via=trpc`, headers: bearer },
    );
    expect(list.body).toBe('{"result":{"data":[{"id":9223372036854775807,"name":"Cactus","tag":"desert"}]}}');
    const wrongMethod = await expectSameAnswers(
      { method: 'GET', url: '/trpc/deletePlant', headers: bearer },
      { method: 'GET', url: '/trpc/deletePlant?via=trpc', headers: bearer },
    );
    expect(wrongMethod).toMatchObject({ status: 405, headers: { allow: 'POST' } });
  });
});

describe("what the direct call leaves to tRPC's handler", () => {
  const listInput = `input=${encodeURIComponent('{"limit":1}')}`;
  it.each<[string, InjectOptions]>([
    ['a batch', { method: 'GET', url: `/trpc/listPlants?batch=1&input=${encodeURIComponent('{"0":{"limit":1}}')}`, headers: bearer }],
    [
      'connection parameters',
      { method: 'GET', url: `/trpc/listPlants?${listInput}&connectionParams=${encodeURIComponent('{"a":"b"}')}`, headers: bearer },
    ],
    ['two input parameters', { method: 'GET', url: `/trpc/listPlants?${listInput}&${listInput}`, headers: bearer }],
    [
      'a query string on a POST',
      { method: 'POST', url: `/trpc/createPlant?${listInput}`, payload: '{"id":1,"name":"Fern"}', headers: token },
    ],
    [
      'streaming asked for',
      { method: 'GET', url: `/trpc/listPlants?${listInput}`, headers: { ...bearer, 'trpc-accept': 'application/jsonl' } },
    ],
    [
      'a GET with another content type',
      { method: 'GET', url: `/trpc/listPlants?${listInput}`, headers: { ...bearer, 'content-type': 'application/octet-stream' } },
    ],
    ['an unknown procedure', { method: 'GET', url: '/trpc/listPots', headers: bearer }],
  ])('%s', async (_case, request) => {
    expect((await answer(request)).byStock).toBe(true);
  });
});

describe('a query input marked, or refused, before either handler runs', () => {
  it('is answered alike with FAST_PATH=off, byte for byte, for a GET and a HEAD', async () => {
    const stockApp = await startTestApp({ env: { FAST_PATH: 'off', CORS_ORIGINS: ORIGIN }, overrides: { store: storeByRequest } });
    try {
      for (const method of ['GET', 'HEAD'] as const) {
        for (const [input, status] of [
          ['{"id":1,"id":2}', 400],
          [`{"id":${'['.repeat(100)}${']'.repeat(100)}}`, 400],
          // Beyond 2^53: marked for a HEAD as for a GET, and so found.
          ['{"id":9007199254740993}', 200],
        ] as const) {
          const request: InjectOptions = { method, url: `/trpc/getPlant?input=${encodeURIComponent(input)}`, headers: bearer };
          const fast = await answer(request);
          const { headers, body, statusCode } = await stockApp.app.inject(request);
          expect(fast.byStock).toBe(false);
          expect(fast.answer).toEqual({ status: statusCode, headers: withoutDateAndId(headers), body });
          expect([method, input, fast.answer.status]).toStrictEqual([method, input, status]);
        }
      }
    } finally {
      await stockApp.close();
    }
  });
});
