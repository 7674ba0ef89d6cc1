// Concurrent creates of one id, over real HTTP to a listening app: one document, never a 500.
import { Agent } from 'node:http';
import { Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type PostOutcome } from '../helpers/http-post.js';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';

const CONCURRENT = 50;

let testApp: TestApp;
let url: string;
// One socket per request, so all 50 really reach the server together.
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT });
beforeAll(async () => {
  testApp = await startTestApp();
  url = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  agent.destroy();
  await testApp.close();
});

const createAll = (bodies: readonly object[]): Promise<PostOutcome[]> =>
  Promise.all(bodies.map((body) => postJson(`${url}/plants`, body, TEST_TOKEN, { agent })));

describe(`${CONCURRENT} concurrent creates of one id`, () => {
  it('with the same body: all answer 200 with the plant, and one document is stored', async () => {
    const plant = { id: 7001, name: 'Monstera', tag: 'tropical' };
    const outcomes = await createAll(Array.from({ length: CONCURRENT }, () => plant));
    for (const outcome of outcomes)
      expect(outcome).toStrictEqual({ status: 200, body: JSON.stringify({ name: 'Monstera', tag: 'tropical' }) });
    expect(await testApp.plants.find({ _id: Long.fromNumber(7001) }).toArray()).toMatchObject([{ name: 'Monstera', tag: 'tropical' }]);
  });

  it('with different names: one document; 200 exactly for the bodies equal to it, 409 for the rest', async () => {
    const id = 7002;
    // Some names repeat, so more than one request can legitimately win the 200.
    const bodies = Array.from({ length: CONCURRENT }, (_, index) => ({ id, name: `name ${index % 10}` }));
    const outcomes = await createAll(bodies);
    const documents = await testApp.plants.find({ _id: Long.fromNumber(id) }).toArray();
    expect(documents).toHaveLength(1);
    const storedName = documents[0]?.name;
    outcomes.forEach((outcome, index) => {
      if (bodies[index]?.name === storedName) {
        expect(outcome).toStrictEqual({ status: 200, body: JSON.stringify({ name: storedName }) });
      } else {
        expect(outcome.status).toBe(409);
        expect(outcome.status !== undefined && JSON.parse(outcome.body)).toStrictEqual({
          error: 409,
          message: expect.any(String) as unknown,
        });
      }
    });
    expect(outcomes.filter((outcome) => outcome.status === 200)).toHaveLength(CONCURRENT / 10);
  });

  it('with a tag in some bodies and not in others: the tag is part of the comparison', async () => {
    const id = 7003;
    const bodies = Array.from({ length: CONCURRENT }, (_, index) =>
      index % 2 === 0 ? { id, name: 'Fern' } : { id, name: 'Fern', tag: 'shade' },
    );
    const outcomes = await createAll(bodies);
    const documents = await testApp.plants.find({ _id: Long.fromNumber(id) }).toArray();
    expect(documents).toHaveLength(1);
    const storedHasTag = documents[0]?.tag !== undefined;
    outcomes.forEach((outcome, index) => {
      expect(outcome.status).toBe((index % 2 === 1) === storedHasTag ? 200 : 409);
    });
  });
});
