// listPlants, getPlant and deletePlant over /trpc (raw HTTP), through the typed client and in
// process: the same rules and tRPC codes as REST, ids beyond 2^53 exact.
import { TRPCClientError } from '@trpc/client';
import { beforeEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../client/create-client.js';
import { createCaller } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { MongoPlantStore } from '../../server/plants/mongo-plant-store.js';
import { authHeaders, TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

const BIG = 2n ** 63n - 1n;
const service = useListeningTestApp();
beforeEach(async () => {
  await service.testApp.plants.deleteMany({});
  const client = createPlantStoreClient({ url: service.url, token: TEST_TOKEN });
  for (const id of [1, 2, 3, 9007199254740993n, BIG]) await client.createPlant.mutate({ id, name: `plant ${id}` });
});

describe('raw /trpc', () => {
  const trpcGet = (path: string, input: string) =>
    service.testApp.app.inject({
      method: 'GET',
      url: `/trpc/${path}?input=${encodeURIComponent(input)}`,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });

  it('lists as a query, ids written as exact JSON numbers', async () => {
    const response = await trpcGet('listPlants', '{"limit":2,"after":2}');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('{"result":{"data":[{"id":3,"name":"plant 3"},{"id":9007199254740993,"name":"plant 9007199254740993"}]}}');
  });

  it('gets a plant by an id beyond 2^53 written as a JSON number', async () => {
    const response = await trpcGet('getPlant', `{"id":${BIG}}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toBe(`{"result":{"data":{"id":${BIG},"name":"plant ${BIG}"}}}`);
  });

  it('answers NOT_FOUND and BAD_REQUEST with their statuses', async () => {
    const missing = await trpcGet('getPlant', '{"id":42}');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { message: 'no plant with id 42', data: { code: 'NOT_FOUND' } } });
    const bad = await trpcGet('listPlants', '{"limit":0}');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { message: 'limit must be an integer from 1 to 1000', data: { code: 'BAD_REQUEST' } } });
  });

  it('names a missing or non-object input as the input, with the shape the procedure takes', async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const refusals = [
      [await fetch(`${service.url}/trpc/getPlant`, { headers: auth }), 'the input is missing: it is { id }'],
      [await fetch(`${service.url}/trpc/getPlant?input=7`, { headers: auth }), 'the input must be a JSON object: it is { id }'],
      [
        await fetch(`${service.url}/trpc/updatePlant?batch=1`, { method: 'POST', headers: authHeaders(), body: '{}' }),
        'the input is missing: it is { id, name?, tag?, ifMatch? }',
      ],
      [
        await fetch(`${service.url}/trpc/createPlant`, { method: 'POST', headers: authHeaders(), body: '"Fern"' }),
        'the input must be a JSON object: it is { id, name, tag? }',
      ],
      [
        await fetch(`${service.url}/trpc/deletePlant`, { method: 'POST', headers: authHeaders(), body: '[1]' }),
        'the input must be a JSON object: it is { id, ifMatch? }',
      ],
    ] as const;
    for (const [response, message] of refusals) {
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { message: string } } | [{ error: { message: string } }];
      expect(Array.isArray(body) ? body[0].error.message : body.error.message).toBe(message);
    }
  });

  it('names where input that is not JSON was read from: the input parameter of a query, the body of a mutation', async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const post = (path: string, body: string) => fetch(`${service.url}/trpc/${path}`, { method: 'POST', headers: authHeaders(), body });
    const refusals = [
      [
        await fetch(`${service.url}/trpc/getPlant?input=${encodeURIComponent('{"id":')}`, { headers: auth }),
        /^the input parameter is not valid JSON: ./,
      ],
      [
        await fetch(`${service.url}/trpc/getPlant,listPlants?batch=1&input=${encodeURIComponent('{"0":')}`, { headers: auth }),
        /^the input parameter is not valid JSON: ./,
      ],
      [await post('updatePlant', '{"id":300,'), /^the request body is not valid JSON: ./],
      [await post('updatePlant?batch=1', '{"0":{"id":300,'), /^the request body is not valid JSON: ./],
      // Beyond 2^53, read by the service's own reader first.
      [await post('updatePlant', '{"id":30000000000000000000,'), /^the request body is not valid JSON: ./],
    ] as const;
    for (const [response, message] of refusals) {
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { message: string } } | { error: { message: string } }[];
      for (const { error } of Array.isArray(body) ? body : [body]) expect(error.message).toMatch(message);
    }
  });

  it('deletes as a mutation', async () => {
    const deleted = await service.testApp.app.inject({
      method: 'POST',
      url: '/trpc/deletePlant',
      headers: authHeaders(),
      payload: '{"id": 9007199254740993}',
    });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ result: {} });
    const again = await service.testApp.app.inject({
      method: 'POST',
      url: '/trpc/deletePlant',
      headers: authHeaders(),
      payload: '{"id": 9007199254740993}',
    });
    expect(again.statusCode).toBe(404);
  });
});

describe('the typed client', () => {
  const client = () => createPlantStoreClient({ url: service.url, token: TEST_TOKEN });

  it('lists and pages, every id a bigint', async () => {
    const first = await client().listPlants.query({ limit: 3 });
    expect(first).toStrictEqual([
      { id: 1n, name: 'plant 1' },
      { id: 2n, name: 'plant 2' },
      { id: 3n, name: 'plant 3' },
    ]);
    const rest = await client().listPlants.query({ after: 3 });
    expect(rest).toEqual([
      { id: 9007199254740993n, name: 'plant 9007199254740993' },
      { id: BIG, name: `plant ${BIG}` },
    ]);
    await expect(client().listPlants.query({ after: 9007199254740993n })).resolves.toEqual([{ id: BIG, name: `plant ${BIG}` }]);
  });

  it('lists the first page with no input at all, as GET /plants does', async () => {
    const page = await client().listPlants.query();
    expect(page.map(({ id }) => id)).toStrictEqual([1n, 2n, 3n, 9007199254740993n, BIG]);
  });

  it('gets and deletes by a bigint id', async () => {
    await expect(client().getPlant.query({ id: BIG })).resolves.toEqual({ id: BIG, name: `plant ${BIG}` });
    await expect(client().deletePlant.mutate({ id: BIG })).resolves.toBeUndefined();
    const error: unknown = await client()
      .getPlant.query({ id: BIG })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error).toMatchObject({ message: `no plant with id ${BIG}`, data: { code: 'NOT_FOUND', httpStatus: 404 } });
  });
});

describe('in process', () => {
  const caller = () =>
    createCaller(
      createContextFactory({
        store: new MongoPlantStore(service.testApp.db, { w: 'majority', journal: true }),
        verifyToken: createTokenVerifier([TEST_TOKEN]),
      })(`Bearer ${TEST_TOKEN}`),
    );

  it('lists, gets and deletes with the same rules', async () => {
    await expect(caller().listPlants({ limit: 2, after: 1 })).resolves.toEqual([
      { id: 2, name: 'plant 2' },
      { id: 3, name: 'plant 3' },
    ]);
    await expect(caller().getPlant({ id: 9007199254740993n })).resolves.toEqual({ id: 9007199254740993n, name: 'plant 9007199254740993' });
    await expect(caller().deletePlant({ id: 1 })).resolves.toBeUndefined();
    await expect(caller().deletePlant({ id: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no plant with id 1' });
    const refused = caller().listPlants({ limit: 1001 });
    await expect(refused).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(refused).rejects.toThrow(/limit must be an integer from 1 to 1000/);
  });
});
