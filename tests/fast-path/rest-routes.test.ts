import Fastify, { type FastifyReply, type FastifyRequest, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { BAD_OUTPUT_ID, DOWN_ID, FAILING_ID, storeByRequest } from '../helpers/scripted-store.js';
import { appRouter } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { int64Json } from '../../schemas/int64-json.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { restOperations } from '../../packages/fast-path/src/rest-operations.js';
import { responseMeta } from '../../server/routes/rest-answers.js';
import { createRestDirectCall } from '../../packages/fast-path/src/rest-direct-call.js';

/**
 * REST requests are answered by packages/fast-path/src/rest-routes.ts: the direct call of
 * rest-direct-call.ts for a plain path of an operation, else trpc-to-openapi's handler given the
 * shims of openapi-shims.ts; FAST_PATH=off mounts trpc-to-openapi's own Fastify plugin instead.
 * Both must answer every request alike: the same status, the same headers a client reads, the
 * same body.
 */
const ORIGIN = 'https://app.example';
let fastPath: TestApp;
let stockAdapter: TestApp;
beforeAll(async () => {
  // With CORS on, so that the app's own headers are there to keep.
  fastPath = await startTestApp({ env: { FAST_PATH: 'on', CORS_ORIGINS: ORIGIN }, overrides: { store: storeByRequest } });
  stockAdapter = await startTestApp({ env: { FAST_PATH: 'off', CORS_ORIGINS: ORIGIN }, overrides: { store: storeByRequest } });
});
afterAll(async () => {
  await fastPath.close();
  await stockAdapter.close();
});

const token = authHeaders();
const post = (url: string, payload: string, headers: Record<string, string> = token): InjectOptions => ({
  method: 'POST',
  url,
  payload,
  headers,
});
const get = (url: string): InjectOptions => ({ method: 'GET', url, headers: token });
const del = (url: string): InjectOptions => ({ method: 'DELETE', url, headers: token });
const mergePatch = { ...token, 'content-type': 'application/merge-patch+json' };
const patch = (url: string, payload: string, headers: Record<string, string> = mergePatch): InjectOptions => ({
  method: 'PATCH',
  url,
  payload,
  headers,
});
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
  [
    'a content type with parameters',
    post('/plants', '{"id":10,"name":"Fern"}', { ...token, 'content-type': 'Application/JSON; charset=utf-8' }),
  ],
  ['a new plant from a browser origin', post('/plants', '{"id":16,"name":"Fern"}', { ...token, origin: ORIGIN })],
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
  // list
  ['a list', get('/plants')],
  ['a page with more to follow', get('/plants?limit=2')],
  ['the next page', get('/plants?limit=2&after=1')],
  ['a page after an id beyond 2^53', get('/plants?after=9007199254740993')],
  ['a limit out of range', get('/plants?limit=0')],
  ['a limit that is not a number', get('/plants?limit=many')],
  ['a limit given twice', get('/plants?limit=1&limit=2')],
  ['an empty limit', get('/plants?limit=')],
  ['an unknown query parameter', get('/plants?colour=green')],
  ['an encoded query', get('/plants?li%6Dit=2')],
  ['a query with an escaped space and a plus', get('/plants?limit=%202&after=+1')],
  ['an empty query', get('/plants?')],
  ['a list without a token', { method: 'GET', url: '/plants?limit=2' }],
  ['a list while the database is down', get(`/plants?after=${DOWN_ID}`)],
  ['a list whose store fails', get(`/plants?after=${FAILING_ID}`)],
  ['a list with a trailing slash', get('/plants/?limit=2')],
  ['HEAD on the list', { method: 'HEAD', url: '/plants?limit=2', headers: token }],
  // get
  ['a plant', get('/plants/1')],
  ['the smallest id', get(`/plants/${-(2n ** 63n)}`)],
  ['an id beyond 2^53', get('/plants/9007199254740993')],
  ['an id beyond int64', get('/plants/9223372036854775808')],
  ['an unknown id', get('/plants/7')],
  ['an id that is not a number', get('/plants/fern')],
  ['a fractional id', get('/plants/1.5')],
  ['a percent-encoded id', get('/plants/%31')],
  ['an id with a plus sign', get('/plants/+1')],
  ['an upper-case path with an id', get('/PLANTS/1')],
  ['an id with a trailing slash', get('/plants/1/')],
  ['a get that breaks the output schema', get(`/plants/${BAD_OUTPUT_ID}`)],
  ['a get while the database is down', get(`/plants/${DOWN_ID}`)],
  ['a get without a token', { method: 'GET', url: '/plants/1' }],
  ['HEAD on a plant', { method: 'HEAD', url: '/plants/1', headers: token }],
  // delete
  ['a delete', del('/plants/1')],
  ['a delete of an unknown plant', del('/plants/7')],
  ['a delete of an id beyond 2^53', del('/plants/9007199254740993')],
  ['a delete of an id that is not a number', del('/plants/fern')],
  ['a delete with a query string', del('/plants/2?force=yes')],
  [
    'a delete with a JSON content type and no body',
    { method: 'DELETE', url: '/plants/1', headers: { ...token, 'content-type': 'application/json' } },
  ],
  ['a delete with a body', { method: 'DELETE', url: '/plants/1', headers: token, payload: '{"id":2}' }],
  ['a delete while the database is down', del(`/plants/${DOWN_ID}`)],
  ['a delete whose store fails', del(`/plants/${FAILING_ID}`)],
  ['a delete without a token', { method: 'DELETE', url: '/plants/1' }],
  ['a delete with a wrong token', { method: 'DELETE', url: '/plants/1', headers: authHeaders('not-a-token') }],
  ['POST to a plant', post('/plants/1', '{"id":1,"name":"Fern"}')],
  // update, conditions, list by tag
  ['a merge patch', patch('/plants/1', '{"name":"Swiss cheese plant"}')],
  ['a patch as JSON', patch('/plants/1', '{"tag":null}', { ...token, 'content-type': 'application/json' })],
  ['a patch that changes nothing', patch('/plants/1', '{}')],
  ['a patch of an id beyond 2^53', patch('/plants/9007199254740993', '{"tag":"climber"}')],
  ['a patch of an unknown plant', patch('/plants/7', '{"name":"x"}', { ...mergePatch, 'if-match': '"x"' })],
  ['a patch with an id in the body', patch('/plants/1', '{"id":1,"name":"x"}')],
  ['a patch with ifMatch in the body', patch('/plants/1', '{"ifMatch":"*"}')],
  ['a patch with an unknown field', patch('/plants/1', '{"nmae":"x"}')],
  ['a patch with a null name', patch('/plants/1', '{"name":null}')],
  ['a patch that is not an object', patch('/plants/1', '[1]')],
  ['a patch that is not JSON', patch('/plants/1', '{"name":')],
  ['a patch as text', patch('/plants/1', '{"name":"x"}', { ...token, 'content-type': 'text/plain' })],
  ['a merge patch to create', post('/plants', '{"id":20,"name":"Fern"}', mergePatch)],
  ['a patch whose If-Match matches none', patch('/plants/1', '{"name":"x"}', { ...mergePatch, 'if-match': '"stale"' })],
  ['a patch with If-Match *', patch('/plants/1', '{"name":"x"}', { ...mergePatch, 'if-match': '*' })],
  ['a patch with an unreadable If-Match', patch('/plants/1', '{"name":"x"}', { ...mergePatch, 'if-match': 'stale' })],
  ['a patch with a trailing slash', patch('/plants/1/', '{"name":"x"}')],
  ['a patch while the database is down', patch(`/plants/${DOWN_ID}`, '{"name":"x"}')],
  ['a patch without a token', patch('/plants/1', '{"name":"x"}', { 'content-type': 'application/merge-patch+json' })],
  ['a delete whose If-Match matches none', { method: 'DELETE', url: '/plants/1', headers: { ...token, 'if-match': '"stale"' } }],
  ['a get with If-None-Match of another tag', { method: 'GET', url: '/plants/1', headers: { ...token, 'if-none-match': '"other"' } }],
  ['a get with If-None-Match *', { method: 'GET', url: '/plants/1', headers: { ...token, 'if-none-match': '*' } }],
  ['a get with If-None-Match and no token', { method: 'GET', url: '/plants/1', headers: { 'if-none-match': '*' } }],
  ['a list from a browser origin', { method: 'GET', url: '/plants?limit=1', headers: { ...token, origin: ORIGIN } }],
  ['a plant from a browser origin', { method: 'GET', url: '/plants/1', headers: { ...token, origin: ORIGIN } }],
  ['a patch from a browser origin', patch('/plants/1', '{"tag":null}', { ...mergePatch, origin: ORIGIN })],
  ['a list by tag', get('/plants?tag=tropical')],
  ['a list by tag, paged', get('/plants?tag=&limit=1')],
  ['a list by two tags', get('/plants?tag=a&tag=b')],
  ['a list by a tag too long', get(`/plants?tag=${'x'.repeat(101)}`)],
  // An empty id: the path of no operation, though a route with an id parameter would take it.
  ['a delete of no id, without a token', { method: 'DELETE', url: '/plants/' }],
  ['a delete of no id', del('/plants/')],
  [
    'a patch of no id as text, without a token',
    { method: 'PATCH', url: '/plants/', headers: { 'content-type': 'text/plain' }, payload: 'x' },
  ],
  ['a patch of no id', patch('/plants/', '{"name":"x"}')],
  ['a get of no id', get('/plants/')],
];

/** What a client reads of an answer, every header but the date; the request id, different on each app, is replaced by a mark. */
function answerOf(response: LightMyRequestResponse) {
  const requestId = response.headers['x-request-id'];
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => name !== 'date' && name !== 'x-request-id'));
  const body = typeof requestId === 'string' ? response.body.replaceAll(requestId, '<request id>') : response.body;
  return { status: response.statusCode, headers, body };
}

describe("the fast REST path answers as trpc-to-openapi's Fastify plugin does", () => {
  it('compares two different adapters: only the fast path mounts the operation as a route of its own', () => {
    expect(fastPath.app.hasRoute({ method: 'POST', url: '/plants' })).toBe(true);
    expect(stockAdapter.app.hasRoute({ method: 'POST', url: '/plants' })).toBe(false);
  });

  it.each(cases)('%s', async (_case, request) => {
    const fast = answerOf(await fastPath.app.inject(request));
    const stock = answerOf(await stockAdapter.app.inject(request));
    expect(fast).toEqual(stock);
    // Every answer has a body, except HEAD's, a successful delete's 204 and a 304.
    if (request.method !== 'HEAD' && fast.status !== 204 && fast.status !== 304) expect(fast.body).not.toBe('');
  });
});

describe('the direct call (rest-direct-call.ts)', () => {
  const operations = restOperations(appRouter);
  const contextOf = createContextFactory({ store: storeByRequest, verifyToken: createTokenVerifier([TEST_TOKEN]) });
  const directCallOf = createRestDirectCall(
    {
      createContext: (request) => contextOf(request.headers.authorization),
      onError: ({ error }) => {
        throw error;
      },
      responseMeta,
    },
    operations,
  );
  const handOn = async (_request: FastifyRequest, reply: FastifyReply) => reply.code(299).send('handed on');

  it('answers the plain paths of operations itself and hands every other path on', async () => {
    const app = Fastify();
    // The writer the service gives every answer: the list holds ids beyond 2^53.
    app.setReplySerializer(int64Json.stringify);
    for (const operation of operations)
      app.route({ method: operation.method, url: operation.fastifyPath, handler: directCallOf(operation, handOn) });
    app.all('/*', handOn);
    const answer = async (url: string, method: 'GET' | 'HEAD' = 'GET') => {
      const { statusCode, body } = await app.inject({ method, url, headers: token });
      return { statusCode, body };
    };
    expect(await answer('/plants/1')).toEqual({ statusCode: 200, body: '{"id":1,"name":"Monstera","tag":"tropical"}' });
    expect((await answer('/plants?limit=1')).statusCode).toBe(200);
    for (const url of ['/plants/%31', '/plants/1/', '/plants/1.5', '/pots/1', '/plants/1/2', '/Plants/1'])
      expect(await answer(url), url).toEqual({ statusCode: 299, body: 'handed on' });
    // A HEAD is answered as its GET, by the direct call itself; Fastify leaves out the body.
    expect(await answer('/plants/1', 'HEAD'), 'HEAD').toEqual({ statusCode: 200, body: '' });
    expect(await answer('/plants/1/', 'HEAD'), 'HEAD').toEqual({ statusCode: 299, body: '' });
    await app.close();
  });

  it('takes a "__proto__" key of a body as a field, never as the prototype of the input', async () => {
    // A body parser that keeps such a key (JSON.parse does; the app's own refuses it before the route).
    const app = Fastify();
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      done(null, JSON.parse(String(body)));
    });
    for (const operation of operations)
      app.route({ method: operation.method, url: operation.fastifyPath, handler: directCallOf(operation, handOn) });
    app.setErrorHandler((error: Error & { code?: string }, _request, reply) => reply.code(400).send({ code: error.code }));
    const { statusCode, body } = await app.inject(
      patch('/plants/1', '{"__proto__":{"name":"Renamed through the prototype"}}', { ...token, 'content-type': 'application/json' }),
    );
    // Refused as an unknown field, as trpc-to-openapi's spread of the body would have it, not a rename.
    expect({ statusCode, body }).toEqual({ statusCode: 400, body: '{"code":"BAD_REQUEST"}' });
    await app.close();
  });

  it('leaves to the handler an operation whose paths an earlier one of the same method also matches', () => {
    const getPlant = operations.find((operation) => operation.method === 'GET' && operation.path === '/plants/{id}');
    if (getPlant === undefined) throw new Error('no GET /plants/{id} operation');
    const later = { ...getPlant, path: '/Plants/count', fastifyPath: '/Plants/count' };
    const another = { ...getPlant, path: '/plants/{id}/pots', fastifyPath: '/plants/:id/pots' };
    const withLater = createRestDirectCall(
      {
        createContext: () => {
          throw new Error('not called');
        },
        onError: () => undefined,
        responseMeta,
      },
      [...operations, later, another],
    );
    expect(withLater(later, handOn)).toBe(handOn);
    expect(withLater(another, handOn)).not.toBe(handOn);
    expect(withLater(getPlant, handOn)).not.toBe(handOn);
  });
});
