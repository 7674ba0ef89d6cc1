// Paging through 10,000 plants in pages of 1000 (GET /plants, following Link headers) lists each
// plant exactly once, in ascending id order, also while other plants are being created.
import { Long } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { checkListing, pageThrough, type GetPage, type SentPlants } from '../helpers/plant-pages.js';
import { int64Json } from '../../schemas/int64-json.js';

const SEEDED = 10_000;
const LIMIT = 1000;
const BEYOND_2_53 = 2n ** 53n;
/** Creating clients at once while a client pages. */
const CREATORS = 8;

/**
 * The seeded plants have even ids, the last ten beyond 2^53; plants created during paging get odd
 * ids, so they land between seeded ones, before and after the pager's position, on every page.
 */
const seededIds: bigint[] = [
  ...Array.from({ length: SEEDED - 10 }, (_, index) => BigInt(2 * (index + 1))),
  ...Array.from({ length: 10 }, (_, index) => BEYOND_2_53 + BigInt(2 * index)),
];
/** Odd ids, in an order that jumps across the whole range (7919 is prime to the count), then odd ids beyond 2^53. */
const createdIds: bigint[] = [
  ...Array.from({ length: SEEDED - 10 }, (_, index) => BigInt(1 + 2 * ((index * 7919) % (SEEDED - 10)))),
  ...Array.from({ length: 10 }, (_, index) => BEYOND_2_53 + BigInt(2 * index + 1)),
];
const plantOf = (id: bigint) => (id % 2n === 0n ? { name: `seeded ${id}` } : { name: `created ${id}`, tag: 'during paging' });

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(async () => {
  await testApp.close();
});
beforeEach(async () => {
  await testApp.plants.deleteMany({});
  // Straight through the driver, in bulk: the API's own create is what runs during paging.
  const createdAt = new Date();
  const documents = seededIds.map((id): PlantDocument => ({ _id: Long.fromBigInt(id), ...plantOf(id), createdAt }));
  await testApp.plants.insertMany(documents, { ordered: false });
});

const getPage: GetPage = async (path) => {
  const response = await testApp.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  const { link } = response.headers;
  return { status: response.statusCode, body: response.body, link: typeof link === 'string' ? link : undefined };
};

const sentOf = (ids: Iterable<bigint>): SentPlants => new Map([...ids].map((id) => [String(id), plantOf(id)]));
const NOTHING_WRONG = { missing: 0, duplicates: 0, outOfOrder: 0, unknown: 0, wrong: 0 };

describe('paging through 10,000 plants in pages of 1000', () => {
  it('lists each plant exactly once, in ascending id order, in 10 pages', async () => {
    const { plants, pages } = await pageThrough(getPage, LIMIT);
    expect(pages).toBe(10);
    expect(checkListing(plants, seededIds, sentOf(seededIds))).toStrictEqual({ listed: SEEDED, ...NOTHING_WRONG });
    expect(plants.map((plant) => BigInt(plant.id))).toStrictEqual([...seededIds].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('lists each plant exactly once while other plants are being created', async () => {
    const acknowledged: bigint[] = [];
    let paging = true;
    let next = 0;
    const creator = async () => {
      for (let id = createdIds[next++]; paging && id !== undefined; id = createdIds[next++]) {
        const response = await postPlant(testApp.app, int64Json.stringify({ id, ...plantOf(id) }));
        expect(response.statusCode, response.body).toBe(200);
        acknowledged.push(id);
      }
    };
    const creators = Array.from({ length: CREATORS }, creator);
    while (acknowledged.length < 50) await new Promise((resolve) => setTimeout(resolve, 5));

    const acknowledgedBefore = [...acknowledged];
    const pass = await pageThrough(getPage, LIMIT).finally(() => {
      paging = false;
    });
    const createdDuringPass = acknowledged.length - acknowledgedBefore.length;
    await Promise.all(creators);
    const sent = sentOf([...seededIds, ...createdIds]);

    // Creates went on throughout the pass, and the plants created before it are in it.
    expect(createdDuringPass).toBeGreaterThan(CREATORS);
    expect(checkListing(pass.plants, [...seededIds, ...acknowledgedBefore], sent)).toMatchObject(NOTHING_WRONG);
    const listedCreated = pass.plants.filter((plant) => BigInt(plant.id) % 2n === 1n).length;
    expect(listedCreated).toBeGreaterThanOrEqual(acknowledgedBefore.length);
    expect(listedCreated).toBeLessThanOrEqual(acknowledged.length);

    // Once the creates are over, one more pass finds every plant, each exactly once.
    const after = await pageThrough(getPage, LIMIT);
    expect(checkListing(after.plants, [...seededIds, ...acknowledged], sent)).toStrictEqual({
      listed: SEEDED + acknowledged.length,
      ...NOTHING_WRONG,
    });
  }, 60_000);
});
