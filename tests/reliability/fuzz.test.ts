// Property-based fuzzing of POST /plants and /trpc/createPlant with hostile bodies, headers and content types.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postRaw } from '../helpers/http-post.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { checkAnswer } from '../helpers/fuzz/check-answer.js';
import { fuzzRequest, TOKEN, type FuzzRequest } from '../helpers/fuzz/hostile-bodies.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const headersOf = (request: FuzzRequest): Record<string, string> => ({
  ...(request.contentType !== undefined && { 'content-type': request.contentType }),
  ...(request.authorization !== undefined && { authorization: request.authorization }),
});

/** Answers by way in and status, printed at the end: how much was refused, how much stored. */
const tally = new Map<string, number>();
const count = (request: FuzzRequest, status: number) => {
  const key = `${request.path} ${status}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
};

let testApp: TestApp;
let url: string;
beforeAll(async () => {
  console.log(`fuzz seed ${SEED} (set FUZZ_SEED to change it)`);
  testApp = await startTestApp({ env: { API_TOKENS: TOKEN } });
  url = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  console.log(`fuzz answers: ${JSON.stringify(Object.fromEntries([...tally].sort()))}`);
  await testApp.close();
});

describe('hostile input', () => {
  it.each([
    ['/plants', 2_500],
    ['/trpc/createPlant', 1_500],
  ] as const)(
    '%s in process: never 5xx, refusals in the error shape, every 200 stored as sent (%i requests)',
    async (path, numRuns) => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest([path]), async (request) => {
          const response = await testApp.app.inject({
            method: 'POST',
            url: request.path,
            headers: headersOf(request),
            payload: request.body,
          });
          count(request, response.statusCode);
          await checkAnswer(request, response.statusCode, response.body, testApp.plants);
        }),
        { seed: SEED, numRuns },
      );
    },
    60_000,
  );

  it('over real HTTP, both ways in: the same (300 requests)', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest(['/plants', '/trpc/createPlant']), async (request) => {
        const outcome = await postRaw(`${url}${request.path}`, request.body, { headers: headersOf(request) });
        if (outcome.status === undefined) throw new Error(`no answer: ${outcome.error}`);
        count(request, outcome.status);
        await checkAnswer(request, outcome.status, outcome.body, testApp.plants);
      }),
      { seed: SEED + 1, numRuns: 300 },
    );
  }, 60_000);
});
