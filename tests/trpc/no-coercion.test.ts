import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../../routers/app.js';
import { createContextFactory } from '../../routers/context.js';
import { createTokenVerifier } from '../../server/auth/bearer-tokens.js';
import { MongoPlantStore } from '../../server/plants/mongo-plant-store.js';
import { authHeaders, postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';

/**
 * trpc-to-openapi switches zod coercion on in place, on the shared schemas, for every REST
 * request. These tests make REST calls first and then check that no path coerces.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
  // Valid and invalid REST calls: each one runs trpc-to-openapi's coercion step.
  await postPlant(testApp.app, { id: 1, name: 'first' });
  await postPlant(testApp.app, { id: '2', name: 'second' });
});
afterAll(async () => {
  await testApp.close();
});

const coercible: [string, Record<string, unknown>][] = [
  ['a numeric string id', { id: '42', name: 'x' }],
  ['a boolean id', { id: true, name: 'x' }],
  ['an empty-string id', { id: '', name: 'x' }],
  ['a numeric name', { id: 43, name: 43 }],
];

describe('nothing is coerced, on any path, after REST calls', () => {
  it.each(coercible)('REST refuses %s', async (_case, body) => {
    expect((await postPlant(testApp.app, body)).statusCode).toBe(400);
  });

  it.each(coercible)('tRPC over HTTP refuses %s', async (_case, body) => {
    const response = await testApp.app.inject({ method: 'POST', url: '/trpc/createPlant', headers: authHeaders(), payload: body });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { data: { code: 'BAD_REQUEST' } } });
  });

  it.each(coercible)('an in-process caller refuses %s', async (_case, body) => {
    const store = new MongoPlantStore(testApp.db, { w: 1 });
    const context = createContextFactory({ store, verifyToken: createTokenVerifier([TEST_TOKEN]) });
    const caller = createCaller(context(`Bearer ${TEST_TOKEN}`));
    // @ts-expect-error: the point is to send what the types forbid
    await expect(caller.createPlant(body)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('stored nothing for the coercible bodies', async () => {
    expect(await testApp.plants.countDocuments()).toBe(1);
  });
});
