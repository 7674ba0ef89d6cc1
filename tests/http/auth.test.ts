import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/app.js';
import { authHeaders, OTHER_TOKEN, postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';

const logs = captureLogs();

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { LOG_LEVEL: 'trace' }, overrides: { logStream: logs.stream } });
});
afterAll(async () => {
  await testApp.close();
});

const withAuthorization = (authorization?: string) => ({
  'content-type': 'application/json',
  ...(authorization !== undefined && { authorization }),
});

const MISSING = 'missing bearer token: send the header Authorization: Bearer <token>';

describe('bearer authentication on POST /plants', () => {
  const OTHER_SCHEME = 'missing bearer token: the Authorization header does not start with Bearer; send Authorization: Bearer <token>';
  it.each([
    ['no token is sent', undefined, MISSING],
    ['an empty Authorization is sent', ' ', MISSING],
    ['another scheme is sent (RFC 6750 section 3.1: no error code)', `Basic ${TEST_TOKEN}`, OTHER_SCHEME],
    ['a scheme that only starts as Bearer is sent', `Bearerx ${TEST_TOKEN}`, OTHER_SCHEME],
    ['a token without its scheme is sent', TEST_TOKEN, OTHER_SCHEME],
  ])('401 with WWW-Authenticate: Bearer when %s', async (_case, authorization, message) => {
    const response = await postPlant(testApp.app, { id: 1, name: 'x' }, withAuthorization(authorization));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json()).toStrictEqual({ error: 401, message });
  });

  const NOT_ACCEPTED = 'it is not a token this service accepts';
  const NOT_BEARER = 'the Authorization header must be Bearer and one token';
  it.each([
    ['a wrong token', 'Bearer not-a-token', NOT_ACCEPTED],
    ['a prefix of a good token', `Bearer ${TEST_TOKEN.slice(0, -1)}`, NOT_ACCEPTED],
    ['a JWT when no identity provider is configured', 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln', NOT_ACCEPTED],
    ['no token after the scheme', 'Bearer ', NOT_BEARER],
    ['a tab after the scheme', `Bearer\t${TEST_TOKEN}`, NOT_BEARER],
    ['two tokens', `Bearer ${TEST_TOKEN} ${TEST_TOKEN}`, NOT_BEARER],
  ])('401 with error="invalid_token" for %s, saying why', async (_case, authorization, reason) => {
    const response = await postPlant(testApp.app, { id: 1, name: 'x' }, withAuthorization(authorization));
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`Bearer error="invalid_token", error_description="${reason}"`);
    expect(response.json()).toStrictEqual({ error: 401, message: `invalid bearer token: ${reason}` });
  });

  it('stores nothing for a refused request', async () => {
    await postPlant(testApp.app, { id: 2, name: 'x' }, withAuthorization('Bearer wrong'));
    expect(await testApp.plants.countDocuments()).toBe(0);
  });

  it('accepts every configured token, with the scheme in any case', async () => {
    for (const [id, authorization] of [
      [3, `Bearer ${TEST_TOKEN}`],
      [4, `Bearer ${OTHER_TOKEN}`],
      [5, `bearer ${TEST_TOKEN}`],
    ] as const) {
      const response = await postPlant(testApp.app, { id, name: 'ok' }, withAuthorization(authorization));
      expect(response.statusCode).toBe(200);
    }
  });

  it('checks the token before the body', async () => {
    const response = await postPlant(testApp.app, { id: 'not a number' }, withAuthorization());
    expect(response.statusCode).toBe(401);
  });

  it.each([
    ['malformed JSON', 'POST', '/plants', 'application/json', '{"id": 1,'],
    ['a body that is not JSON', 'POST', '/plants', 'text/plain', 'id=1'],
    ['a body over the limit', 'POST', '/plants', 'application/json', `{"name":"${'x'.repeat(20_000)}"}`],
    ['an array body', 'POST', '/plants', 'application/json', '[]'],
    ['a malformed merge patch', 'PATCH', '/plants/1', 'application/merge-patch+json', '{'],
  ])('judges the token before the body: without one, %s gets the 401', async (_case, method, url, contentType, payload) => {
    const refused = await testApp.app.inject({ method, url, headers: { 'content-type': contentType }, payload });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toStrictEqual({ error: 401, message: MISSING });
    const judged = await testApp.app.inject({
      method,
      url,
      headers: { 'content-type': contentType, authorization: `Bearer ${TEST_TOKEN}` },
      payload,
    });
    expect([400, 413, 415]).toContain(judged.statusCode);
  });

  it.each(['/plants', '/trpc/createPlant'])("judges the token before the body's encoding: %s", async (url) => {
    const encoded = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const payload = '{"id":1,"name":"x"}';
    const refused = await testApp.app.inject({ method: 'POST', url, headers: encoded, payload });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['accept-encoding']).toBeUndefined();
    const judged = await testApp.app.inject({
      method: 'POST',
      url,
      headers: { ...encoded, authorization: `Bearer ${TEST_TOKEN}` },
      payload,
    });
    expect(judged.statusCode).toBe(415);
    expect(judged.headers['accept-encoding']).toBe('identity');
    // No body, nothing encoded: an empty DELETE is served whatever its headers say of a body.
    const created = await postPlant(testApp.app, { id: 61, name: 'x' }, withAuthorization(`Bearer ${TEST_TOKEN}`));
    expect(created.statusCode).toBe(200);
    const emptyDelete = await testApp.app.inject({
      method: 'DELETE',
      url: '/plants/61',
      headers: { ...encoded, 'content-length': '0', authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(emptyDelete.statusCode).toBe(204);
  });

  const refusedCall = (path: string) => ({
    error: { message: MISSING, code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401, path } },
  });

  it.each([
    ['malformed JSON', 'application/json', '{"id": 1,', 400],
    ['a body that is not JSON', 'text/plain', 'id=1', 415],
    ['a body over the limit', 'application/json', `{"name":"${'x'.repeat(20_000)}"}`, 413],
  ])('over /trpc too: without a token, %s gets the call 401 before the body is read', async (_case, contentType, payload, withToken) => {
    const refused = await testApp.app.inject({
      method: 'POST',
      url: '/trpc/createPlant',
      headers: { 'content-type': contentType },
      payload,
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.json()).toStrictEqual(refusedCall('createPlant'));
    const judged = await testApp.app.inject({
      method: 'POST',
      url: '/trpc/createPlant',
      headers: { 'content-type': contentType, authorization: `Bearer ${TEST_TOKEN}` },
      payload,
    });
    expect(judged.statusCode).toBe(withToken);
  });

  it("over /trpc, a batch refused before its body gets one 401, which every tRPC link reads as each call's", async () => {
    const refused = await testApp.app.inject({
      method: 'POST',
      url: '/trpc/createPlant,deletePlant?batch=1',
      headers: { 'content-type': 'text/plain' },
      payload: 'not JSON',
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toStrictEqual({ error: { message: MISSING, code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });
  });

  it.each([
    ['POST', '/trpc/createPlant', '{"id":1,"name":"Fern"}', undefined],
    ['GET', `/trpc/getPlant?input=${encodeURIComponent('{"id":1}')}`, undefined, undefined],
    ['GET', '/trpc/listPlants', undefined, 'Bearer not-a-token'],
  ])('over /trpc, the 401 before the input (%s %s) is the one tRPC itself gives the call', async (method, url, payload, authorization) => {
    const headers = { ...(payload !== undefined && { 'content-type': 'application/json' }), ...(authorization && { authorization }) };
    const ours = await testApp.app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
    const trpcOwn = await fetchRequestHandler({
      endpoint: '/trpc',
      router: appRouter,
      req: new Request(`http://localhost${url}`, { method, headers, ...(payload !== undefined && { body: payload }) }),
      createContext: () => testApp.app.apiContext(authorization),
    });
    expect(ours.statusCode).toBe(trpcOwn.status);
    expect(ours.json()).toStrictEqual(await trpcOwn.json());
  });

  it.each([
    ['a query input that is not JSON', '/trpc/getPlant?input=%7B%22id%22%3A', 400],
    ['a query input writing a key twice', `/trpc/getPlant?input=${encodeURIComponent('{"id":1,"id":2}')}`, 400],
    ['a batch of them', `/trpc/getPlant,listPlants?batch=1&input=${encodeURIComponent('{"0":{"id":1,"id":2}}')}`, 400],
    ['an unknown procedure', `/trpc/getPot?input=${encodeURIComponent('{"id":1}')}`, 404],
  ])('over /trpc, a GET of %s gets the 401 without a token, whatever its input', async (_case, url, status) => {
    const refused = await testApp.app.inject({ method: 'GET', url });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: { message: MISSING, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });
    const judged = await testApp.app.inject({ method: 'GET', url, headers: authHeaders() });
    expect(judged.statusCode).toBe(status);
  });

  it.each([
    ['a procedure that does not exist', '/trpc/createPot', 404],
    ['a query', '/trpc/getPlant', 405],
  ])('over /trpc, a POST of %s gets the 401 without a token, its 404 or 405 with one', async (_case, url, status) => {
    const headers = { 'content-type': 'text/plain' };
    const refused = await testApp.app.inject({ method: 'POST', url, headers, payload: 'x'.repeat(20_000) });
    expect(refused.statusCode).toBe(401);
    const judged = await testApp.app.inject({ method: 'POST', url, headers: { ...headers, ...authHeaders() }, payload: '{"id":1}' });
    expect(judged.statusCode).toBe(status);
  });

  // `/trpc/` is tRPC's route too, with an empty procedure name: GET and POST are judged as calls there.
  it.each(
    ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'].flatMap((method) => [
      [method, '/trpc/createPlant'],
      [method, '/trpc/'],
    ]),
  )('over /trpc, %s %s gets a 405 in the tRPC envelope before its token or body is judged', async (method, url) => {
    const response = await testApp.app.inject({
      method,
      url,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.json()).toMatchObject({
      error: {
        message: `${method} is not allowed on ${url}: it answers GET, HEAD, POST`,
        data: { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 },
      },
    });
  });

  it.each([
    ['a body that is not JSON', { 'content-type': 'text/plain' }, '{"id":1,"name":"x"}'],
    ['no body and no Content-Type', {}, undefined],
  ])('over /trpc, %s is refused in words a client can act on, labelled JSON', async (_case, headers, payload) => {
    const post = (url: string) =>
      testApp.app.inject({ method: 'POST', url, headers: { ...headers, authorization: `Bearer ${TEST_TOKEN}` }, payload });
    const response = await post('/trpc/createPlant');
    expect(response.statusCode).toBe(415);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toMatchObject({
      error: {
        message: 'the body must be JSON: send it with Content-Type: application/json',
        data: { code: 'UNSUPPORTED_MEDIA_TYPE', path: 'createPlant' },
      },
    });
    // A batch's refusal is every call's: it names none.
    const batch = await post('/trpc/createPlant,createPlant?batch=1');
    expect(batch.statusCode).toBe(415);
    expect(batch.json()).toMatchObject({ error: { data: { code: 'UNSUPPORTED_MEDIA_TYPE' } } });
    expect(batch.json<{ error: { data: object } }>().error.data).not.toHaveProperty('path');
  });

  it('needs no token for /healthz, /readyz and /openapi.json', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json']) {
      expect((await testApp.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
  });

  it('never writes a token to the log, even at trace level', async () => {
    await postPlant(testApp.app, { id: 6, name: 'logged' }, withAuthorization(`Bearer ${TEST_TOKEN}`));
    await postPlant(testApp.app, { id: 7, name: 'logged' }, withAuthorization('Bearer some-guessed-token'));
    const text = logs.text();
    expect(text).toContain('request completed');
    for (const secret of [TEST_TOKEN, OTHER_TOKEN, 'some-guessed-token']) expect(text).not.toContain(secret);
  });
});
