// GET /plants (paging with limit, after and Link), GET /plants/{id} and DELETE /plants/{id},
// against the real app and MongoDB, with ids beyond 2^53 on every route.
import { Long } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { int64Json } from '../../schemas/int64-json.js';
import { postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp.close();
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const get = (url: string, headers: Record<string, string> = auth) => testApp.app.inject({ method: 'GET', url, headers });
const del = (url: string, headers: Record<string, string> = auth) => testApp.app.inject({ method: 'DELETE', url, headers });

async function store(...ids: (number | bigint)[]) {
  for (const id of ids) {
    const response = await postPlant(
      testApp.app,
      int64Json.stringify({ id, name: `plant ${id}`, ...(typeof id === 'number' && id % 2 === 0 && { tag: 'even' }) }),
    );
    expect(response.statusCode, response.body).toBe(200);
  }
}

function expectError(response: { statusCode: number; json: () => unknown }, status: number, message: string | RegExp) {
  expect(response.statusCode).toBe(status);
  const body = response.json() as { error: number; message: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(status);
  expect(body.message).toMatch(message);
}

beforeEach(async () => {
  await testApp.plants.deleteMany({});
});

describe('GET /plants', () => {
  it('answers the plants in ascending id order, with their ids, exactly', async () => {
    await store(5, 2n ** 63n - 1n, -(2n ** 63n), 9007199254740993n, 9007199254740992n, 1);
    const response = await get('/plants');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers.link).toBeUndefined();
    expect(response.body).toBe(
      '[{"id":-9223372036854775808,"name":"plant -9223372036854775808"},{"id":1,"name":"plant 1"},{"id":5,"name":"plant 5"},' +
        '{"id":9007199254740992,"name":"plant 9007199254740992"},{"id":9007199254740993,"name":"plant 9007199254740993"},' +
        '{"id":9223372036854775807,"name":"plant 9223372036854775807"}]',
    );
  });

  it('answers an empty array for an empty store', async () => {
    const response = await get('/plants');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('pages with limit and after, and links the next page while plants follow', async () => {
    await store(...Array.from({ length: 7 }, (_, index) => index + 1));
    const first = await get('/plants?limit=3');
    expect(first.json<{ id: number }[]>().map((plant) => plant.id)).toEqual([1, 2, 3]);
    expect(first.headers.link).toBe('</plants?limit=3&after=3>; rel="next"');
    const second = await get('/plants?limit=3&after=3');
    expect(second.json<{ id: number }[]>().map((plant) => plant.id)).toEqual([4, 5, 6]);
    expect(second.headers.link).toBe('</plants?limit=3&after=6>; rel="next"');
    const last = await get('/plants?limit=3&after=6');
    expect(last.json<{ id: number }[]>().map((plant) => plant.id)).toEqual([7]);
    expect(last.headers.link).toBeUndefined();
    // A page that ends exactly at the last plant says no more follow.
    const exact = await get('/plants?limit=7');
    expect(exact.json<unknown[]>()).toHaveLength(7);
    expect(exact.headers.link).toBeUndefined();
  });

  it('pages after an id beyond 2^53, exactly', async () => {
    await store(9007199254740992n, 9007199254740993n, 9007199254740994n);
    const response = await get('/plants?after=9007199254740992&limit=1');
    expect(response.body).toBe('[{"id":9007199254740993,"name":"plant 9007199254740993"}]');
    expect(response.headers.link).toBe('</plants?after=9007199254740993&limit=1>; rel="next"');
  });

  it('defaults limit to 100', async () => {
    await store(...Array.from({ length: 101 }, (_, index) => index + 1));
    const response = await get('/plants');
    expect(response.json<unknown[]>()).toHaveLength(100);
    expect(response.headers.link).toBe('</plants?limit=100&after=100>; rel="next"');
  });

  it.each([
    ['limit=abc', 'limit must be an integer from 1 to 1000'],
    ['limit=1.5', 'limit must be an integer from 1 to 1000'],
    ['limit=0', 'limit must be an integer from 1 to 1000'],
    ['limit=1001', 'limit must be an integer from 1 to 1000'],
    ['limit=-1', 'limit must be an integer from 1 to 1000'],
    ['limit=05', 'limit must be written plainly, as 5: no leading zero or plus sign'],
    ['limit=%2B5', 'limit must be written plainly, as 5: no leading zero or plus sign'],
    ['limit=02000', 'limit must be an integer from 1 to 1000'],
    ['after=abc', 'after must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['after=9223372036854775808', 'after must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['after=1.5', 'after must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['after=042', 'after must be written plainly, as 42: no leading zero or plus sign'],
    ['limt=10', 'unknown parameter "limt": listing plants takes only limit, tag and after'],
    ['limit=1&limit=2', 'limit may be given once'],
    ['after=1&after=2', 'after may be given once'],
  ])('refuses %s with 400 naming the parameter', async (query, message) => {
    expectError(await get(`/plants?${query}`), 400, message);
  });

  it('needs a token', async () => {
    const response = await get('/plants', {});
    expectError(response, 401, 'missing bearer token: send the header Authorization: Bearer <token>');
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });
});

describe('GET /plants/{id}', () => {
  it('answers the plant with its id, exactly at any size', async () => {
    await store(4, 2n ** 63n - 1n);
    expect((await get('/plants/4')).json()).toEqual({ id: 4, name: 'plant 4', tag: 'even' });
    const big = await get('/plants/9223372036854775807');
    expect(big.statusCode).toBe(200);
    expect(big.body).toBe('{"id":9223372036854775807,"name":"plant 9223372036854775807"}');
  });

  it('answers 404 when there is none', async () => {
    expectError(await get('/plants/77'), 404, 'no plant with id 77');
  });

  it.each(['abc', '1.5', '9223372036854775808', '0x10', '%20'])('answers 400 for the id %s', async (id) => {
    expectError(await get(`/plants/${id}`), 400, 'id must be an integer from -9223372036854775808 to 9223372036854775807');
  });

  it.each([
    ['042', 42],
    ['+42', 42],
    ['-042', -42],
    ['00', 0],
    ['+09223372036854775807', '9223372036854775807'],
  ])('answers 400 for the id %s, naming how it is written', async (id, plainly) => {
    expectError(await get(`/plants/${id}`), 400, `id must be written plainly, as ${plainly}: no leading zero or plus sign`);
  });
});

describe('DELETE /plants/{id}', () => {
  it('answers 204 with an empty body, then 404; the id can be created again', async () => {
    await store(9007199254740993n);
    const deleted = await del('/plants/9007199254740993');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    // No content, so nothing for a Content-Type to describe.
    expect(deleted.headers['content-type']).toBeUndefined();
    expect(await testApp.plants.countDocuments({ _id: Long.fromString('9007199254740993') })).toBe(0);
    expectError(await del('/plants/9007199254740993'), 404, 'no plant with id 9007199254740993');
    const again = await postPlant(testApp.app, '{"id": 9007199254740993, "name": "again"}');
    expect(again.statusCode).toBe(200);
    expect((await get('/plants/9007199254740993')).json()).toMatchObject({ name: 'again' });
  });

  it('answers 400 when the id is not an int64, and 401 without a token', async () => {
    expectError(await del('/plants/abc'), 400, 'id must be an integer from -9223372036854775808 to 9223372036854775807');
    expectError(await del('/plants/1', {}), 401, /^missing bearer token/);
  });

  it("refuses a query on reading or deleting one plant: the id is the path's, nothing else is read; neither plant is touched", async () => {
    await store(6, 7);
    expectError(await get('/plants/6?id=7'), 400, 'unknown parameter "id": the path gives it');
    expectError(await del('/plants/6?id=7'), 400, 'unknown parameter "id": the path gives it');
    // Any other name: neither operation reads its query.
    expectError(await get('/plants/6?Id=7&foo=1'), 400, 'unknown parameters "Id", "foo": this operation takes no query parameters');
    expectError(await del('/plants/6?foo=1'), 400, 'unknown parameter "foo": this operation takes no query parameters');
    expect(await testApp.plants.countDocuments({})).toBe(2);
  });

  it('takes a DELETE that says Content-Type: application/json with no body', async () => {
    await store(5);
    const response = await testApp.app.inject({
      method: 'DELETE',
      url: '/plants/5',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(204);
  });

  it('reads a DELETE body of only a byte-order mark as an empty body, not as no body', async () => {
    const response = await testApp.app.inject({
      method: 'DELETE',
      url: '/plants/5',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: Buffer.from([0xef, 0xbb, 0xbf]),
    });
    expectError(response, 400, 'the request body is empty: send a JSON object');
  });

  it('refuses a DELETE with a body, where a condition would go unheard: 400, nothing deleted; an empty object is none', async () => {
    await store(8);
    const withBody = (payload: string) =>
      testApp.app.inject({ method: 'DELETE', url: '/plants/8', headers: { ...auth, 'content-type': 'application/json' }, payload });
    for (const body of ['{"ifMatch":"\\"stale\\""}', '{"id":9}', '[]', 'null', '"x"']) {
      expectError(await withBody(body), 400, 'a DELETE takes no body: send the condition as the If-Match header');
    }
    expect(await testApp.plants.countDocuments({})).toBe(1);
    expect((await withBody('{}')).statusCode).toBe(204);
  });

  it('refuses a DELETE with a body of another media type as one with a JSON body, not with a 415 that asks for JSON', async () => {
    await store(8);
    for (const contentType of ['text/plain', 'application/merge-patch+json', 'not a media type']) {
      const response = await testApp.app.inject({
        method: 'DELETE',
        url: '/plants/8',
        headers: { ...auth, 'content-type': contentType },
        payload: '{"ifMatch":"\\"stale\\""}',
      });
      expectError(response, 400, 'a DELETE takes no body: send the condition as the If-Match header');
    }
    expect(await testApp.plants.countDocuments({})).toBe(1);
  });

  it('takes a DELETE whose Content-Type names any media type, with Content-Length: 0, as one without a body', async () => {
    await store(8, 9);
    const empty = (id: number, contentType: string) =>
      testApp.app.inject({
        method: 'DELETE',
        url: `/plants/${id}`,
        headers: { ...auth, 'content-type': contentType, 'content-length': '0' },
      });
    expect((await empty(8, 'text/plain')).statusCode).toBe(204);
    expect((await empty(9, 'application/merge-patch+json')).statusCode).toBe(204);
    // One that is no media type cannot be let by: said so, not told it had a body.
    expectError(
      await empty(9, 'not a media type'),
      400,
      'the Content-Type header is not a media type: a DELETE takes no body, so send none',
    );
    expect(await testApp.plants.countDocuments({})).toBe(0);
  });

  it('deletes only the plant named', async () => {
    await store(1, 2, 3);
    expect((await del('/plants/2')).statusCode).toBe(204);
    expect((await get('/plants')).json<{ id: number }[]>().map((plant) => plant.id)).toEqual([1, 3]);
  });
});
