// Every int64 id, exactly: REST, /trpc with a plain JSON body, the typed client and the
// in-process caller each store the id they were given as BSON Int64, at both ends of the range
// and around 2^53, and refuse what is outside it.
import { Long } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../client/create-client.js';
import { createCaller } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { int64Json } from '../../schemas/int64-json.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { MongoPlantStore } from '../../server/plants/mongo-plant-store.js';
import { authHeaders, TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

const EDGES = [
  '9223372036854775807',
  '-9223372036854775808',
  '9007199254740993',
  '9007199254740992',
  '-9007199254740993',
  '9007199254740991',
];
const RANGE = 'id must be an integer from -9223372036854775808 to 9223372036854775807';
/** Numbers that are not integers, though JSON.parse reads most of them as one. */
const NON_INTEGERS = [
  '4.9999999999999999',
  '-4.9999999999999999',
  '1e-400',
  '9007199254740991.4',
  '77.00000000000000001',
  '9007199254740993.5',
  '0.5',
];
/** Integers written with a fraction or an exponent, and the integer each writes. */
const SMALL_INTEGER_SPELLINGS: [string, number][] = [
  ['1.0', 1],
  ['1e3', 1000],
  ['1.5e1', 15],
  ['-2.50e1', -25],
];
const NOT_STORED = 'not an integer';

const service = useListeningTestApp();

/** The stored document's `_id`, read as BSON Int64 (never rounded through a number). */
async function storedId(id: string): Promise<string | undefined> {
  const document = await service.testApp.plants.findOne({ _id: Long.fromString(id) }, { promoteLongs: false });
  expect(document?._id).toBeInstanceOf(Long);
  return document?._id.toString();
}

/** A name unique to this id and way in, so ways in do not meet each other's plants. */
const nameFor = (way: string, id: string) => `${way} ${id}`;

/** Each way in starts from an empty collection: they store the same ids. */
const emptyStore = () => service.testApp.plants.deleteMany({});

describe('POST /plants', () => {
  beforeAll(emptyStore);
  it.each(EDGES)('stores %s exactly, and a retry of it is idempotent', async (id) => {
    const payload = `{"id": ${id}, "name": "${nameFor('rest', id)}"}`;
    const first = await service.testApp.app.inject({ method: 'POST', url: '/plants', headers: authHeaders(), payload });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ name: nameFor('rest', id) });
    expect(await storedId(id)).toBe(id);
    const again = await service.testApp.app.inject({ method: 'POST', url: '/plants', headers: authHeaders(), payload });
    expect(again.statusCode).toBe(200);
    expect(await service.testApp.plants.countDocuments({ _id: Long.fromString(id) })).toBe(1);
    const other = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: `{"id": ${id}, "name": "another"}`,
    });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ error: 409, message: `a plant with id ${id} already exists with a different name or tag` });
  });

  it('keeps 2^53 and 2^53 + 1 apart', async () => {
    expect(await storedId('9007199254740992')).toBe('9007199254740992');
    expect(await storedId('9007199254740993')).toBe('9007199254740993');
  });

  it('takes integers written with a fraction or an exponent exactly', async () => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: '{"id": 9.007199254740995e15, "name": "exponent"}',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await storedId('9007199254740995')).toBe('9007199254740995');
  });

  it.each([
    ['9223372036854775808', RANGE],
    ['-9223372036854775809', RANGE],
    ['18446744073709551616', RANGE],
    ['1e300', RANGE],
    ['1e400', RANGE],
    ['"9007199254740993"', 'id must be an integer'],
  ])('refuses %s with 400, naming the range', async (id, message) => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: `{"id": ${id}, "name": "out of range"}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toMatch(message);
  });

  it.each(SMALL_INTEGER_SPELLINGS)('takes %s as the integer %i it writes', async (token, id) => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: `{"id": ${token}, "name": "spelled ${token}"}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await service.testApp.plants.countDocuments({ _id: Long.fromNumber(id), name: `spelled ${token}` })).toBe(1);
  });

  it.each(NON_INTEGERS)('refuses %s, which is not an integer, with 400 "id must be an integer", storing nothing', async (token) => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: `{"id": ${token}, "name": "${NOT_STORED}"}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 400, message: 'id must be an integer' });
    expect(await service.testApp.plants.countDocuments({ name: NOT_STORED })).toBe(0);
  });

  it('reports a malformed body with big numbers in the words of the text the client sent', async () => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/plants',
      headers: authHeaders(),
      payload: '{"id": 9223372036854775807, "name": }',
    });
    expect(response.statusCode).toBe(400);
    const { message } = response.json<{ message: string }>();
    expect(message).toMatch(/^the request body is not valid JSON: Unexpected token '}'/);
    expect(message).toContain('"name": }');
    expect(message).not.toContain('\\u0000');
  });
});

describe('POST /trpc/createPlant with a plain JSON body', () => {
  beforeAll(emptyStore);
  it.each(EDGES)('stores %s exactly', async (id) => {
    const payload = `{"id": ${id}, "name": "${nameFor('trpc', id)}"}`;
    const response = await service.testApp.app.inject({ method: 'POST', url: '/trpc/createPlant', headers: authHeaders(), payload });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ result: { data: { name: nameFor('trpc', id) } } });
    expect(await storedId(id)).toBe(id);
  });

  it('refuses an id outside int64 with BAD_REQUEST', async () => {
    const response = await service.testApp.app.inject({
      method: 'POST',
      url: '/trpc/createPlant',
      headers: authHeaders(),
      payload: '{"id": 9223372036854775808, "name": "x"}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { message: RANGE, data: { code: 'BAD_REQUEST' } } });
  });

  it.each(NON_INTEGERS)(
    'refuses %s, which is not an integer, with BAD_REQUEST "id must be an integer", in a body and in a query input',
    async (token) => {
      const created = await service.testApp.app.inject({
        method: 'POST',
        url: '/trpc/createPlant',
        headers: authHeaders(),
        payload: `{"id": ${token}, "name": "${NOT_STORED}"}`,
      });
      const fetched = await service.testApp.app.inject({
        method: 'GET',
        url: `/trpc/getPlant?input=${encodeURIComponent(`{"id":${token}}`)}`,
        headers: authHeaders(),
      });
      for (const response of [created, fetched]) {
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ error: { message: 'id must be an integer', data: { code: 'BAD_REQUEST' } } });
      }
      expect(await service.testApp.plants.countDocuments({ name: NOT_STORED })).toBe(0);
    },
  );
});

describe('the typed client', () => {
  beforeAll(emptyStore);
  const client = () => createPlantStoreClient({ url: service.url, token: TEST_TOKEN });

  it.each(EDGES)('stores %s given as a bigint', async (id) => {
    await expect(client().createPlant.mutate({ id: BigInt(id), name: nameFor('client', id) })).resolves.toEqual({
      name: nameFor('client', id),
    });
    expect(await storedId(id)).toBe(id);
  });

  it('refuses a number beyond 2^53 before sending it, saying to pass a bigint', async () => {
    await expect(client().createPlant.mutate({ id: 2 ** 60, name: 'rounded' })).rejects.toThrow(/^id must be .* pass it as a bigint/);
    expect(await service.testApp.plants.countDocuments({ name: 'rounded' })).toBe(0);
  });
});

describe('the in-process caller', () => {
  beforeAll(emptyStore);
  const caller = () =>
    createCaller(
      createContextFactory({
        store: new MongoPlantStore(service.testApp.db, { w: 'majority', journal: true }),
        verifyToken: createTokenVerifier([TEST_TOKEN]),
      })(`Bearer ${TEST_TOKEN}`),
    );

  it.each(EDGES)('stores %s given as a bigint', async (id) => {
    await expect(caller().createPlant({ id: BigInt(id), name: nameFor('caller', id) })).resolves.toEqual({ name: nameFor('caller', id) });
    expect(await storedId(id)).toBe(id);
  });

  it('takes a safe integer as a number or a bigint alike', async () => {
    await caller().createPlant({ id: 123, name: 'same' });
    await expect(caller().createPlant({ id: 123n, name: 'same' })).resolves.toEqual({ name: 'same' });
  });

  it('refuses a number beyond 2^53, never storing it rounded', async () => {
    await expect(caller().createPlant({ id: Number('9007199254740993'), name: 'rounded' })).rejects.toThrow(/pass it as a bigint/);
    expect(await service.testApp.plants.countDocuments({ name: 'rounded' })).toBe(0);
  });
});

describe('the OpenAPI document', () => {
  it('says int64 with the exact bounds, and offers an id beyond 2^53 to try', async () => {
    const response = await service.testApp.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.body).toContain('"minimum":-9223372036854775808,"maximum":9223372036854775807');
    const document = int64Json.parse(response.body) as { components: { schemas: { NewPlant: { properties: { id: unknown } } } } };
    expect(document.components.schemas.NewPlant.properties.id).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: -(2n ** 63n),
      maximum: 2n ** 63n - 1n,
    });
    expect(response.body).toContain('9007199254740993');
  });
});

describe('ids in the path', () => {
  beforeAll(emptyStore);
  const ids = ['0', '123456789012345', '-123456789012345', '1234567890123456', '9007199254740993', '-9223372036854775808'];

  it('reads the digits exactly, whatever their count, and -0 as 0', async () => {
    for (const id of ids) {
      const stored = await fetch(new URL('/plants', service.url), {
        method: 'POST',
        headers: { ...authHeaders(), 'content-type': 'application/json' },
        body: `{"id": ${id}, "name": "${nameFor('path', id)}"}`,
      });
      expect(stored.status, await stored.text()).toBe(200);
    }
    for (const [asked, id] of [...ids.map((id) => [id, id]), ['-0', '0']]) {
      const read = await fetch(new URL(`/plants/${asked}`, service.url), { headers: authHeaders() });
      expect(await read.text()).toBe(`{"id":${id},"name":"${nameFor('path', id ?? '')}"}`);
    }
  });
});
