// Ids in every spelling sent to the built service from outside, in both modes: an id is stored
// only when its text is an integer in the int64 range, exactly as written; a number that is not
// an integer answers 400 "id must be an integer" even where a double would round it to one. After
// each batch the process must still answer /healthz and have answered no 5xx, and what is stored
// must be exactly what was accepted, reading back exactly.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBigInt } from '../../schemas/int64.js';
import { numberSpelling, type Spelling } from '../helpers/number-spellings.js';
import {
  exactJson,
  FAST_PATH_MODES,
  JSON_WITH_TOKEN,
  messageOf,
  readBack,
  startHostileService,
  trpcQuery,
  type Answer,
  type HostileService,
} from '../helpers/hostile-service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const RANGE = 'id must be an integer from -9223372036854775808 to 9223372036854775807';
const NOT_AN_INTEGER = 'id must be an integer';

/** The name a plant with this id is stored under: the same for every spelling, so a repeat is idempotent. */
const nameOf = (id: bigint) => `plant ${id}`;

type Way = 'rest' | 'trpc' | 'query';
const create = (service: HostileService, way: Exclude<Way, 'query'>, body: string) =>
  service.send({ method: 'POST', path: way === 'rest' ? '/plants' : '/trpc/createPlant', body, headers: JSON_WITH_TOKEN });

/** The refusal a spelling must get, or undefined when it names an int64. */
function refusalOf({ denotes }: Spelling): string | undefined {
  if (denotes.kind === 'int64') return undefined;
  return denotes.kind === 'beyond int64' ? RANGE : NOT_AN_INTEGER;
}

/** Checks every stored plant against what was accepted, through the list and through each read. */
async function expectStoredExactly(service: HostileService, accepted: ReadonlySet<bigint>): Promise<void> {
  const listed = await service.storedPlants();
  expect(listed.map(({ id }) => BigInt(id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(
    [...accepted].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  for (const plant of listed) expect(plant).toEqual({ id: fromBigInt(BigInt(plant.id)), name: nameOf(BigInt(plant.id)) });
  for (const id of accepted) {
    const { rest, trpc } = await readBack(service, id);
    // The digits themselves, not a number that prints like them.
    expect(rest.body).toBe(`{"id":${id},"name":"${nameOf(id)}"}`);
    expect(trpc.body).toBe(`{"result":{"data":{"id":${id},"name":"${nameOf(id)}"}}}`);
  }
}

describe.each(FAST_PATH_MODES)('ids in every spelling, FAST_PATH=%s, the built service', (mode) => {
  let service: HostileService;
  /** The ids the service took, as exact integers. */
  const accepted = new Set<bigint>();
  beforeAll(async () => {
    service = await startHostileService({ FAST_PATH: mode });
  });
  afterAll(async () => {
    await service.stop();
  });

  it.each([
    ['rest', '4.9999999999999999', 5n],
    ['rest', '1e-400', 0n],
    ['rest', '9007199254740991.4', 9007199254740991n],
    ['trpc', '77.00000000000000001', 77n],
    ['trpc', '4.9999999999999999', 5n],
    ['rest', '-4.9999999999999999', -5n],
  ] as const)('%s: %s is refused with 400 "id must be an integer", and no plant %i is stored', async (way, token, rounded) => {
    const answer = await create(service, way, `{"id":${token},"name":"a"}`);
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toBe(NOT_AN_INTEGER);
    const query = await service.send({ method: 'GET', path: trpcQuery('getPlant', `{"id":${token}}`), headers: JSON_WITH_TOKEN });
    expect(query.status).toBe(400);
    expect(messageOf(query)).toBe(NOT_AN_INTEGER);
    const { rest } = await readBack(service, rounded);
    expect(rest.status).toBe(404);
    await service.checkAfterBatch();
  });

  it.each([
    ['1.0', 1n],
    ['1e3', 1000n],
    ['1.5e1', 15n],
    ['9.223372036854775807e18', 9223372036854775807n],
  ] as const)('%s, an integer written with a fraction or an exponent, is stored as %i', async (token, id) => {
    const answer = await create(service, 'rest', `{"id":${token},"name":"${nameOf(id)}"}`);
    expect(answer.status, answer.body).toBe(200);
    accepted.add(id);
    await expectStoredExactly(service, accepted);
  });

  it('generated spellings over REST, /trpc bodies and /trpc query inputs: stored exactly when an int64, else refused in words', async () => {
    await fc.assert(
      fc.asyncProperty(numberSpelling, fc.constantFrom<Way>('rest', 'trpc', 'query'), async (spelling, way) => {
        const refusal = refusalOf(spelling);
        let answer: Answer;
        if (way === 'query') {
          answer = await service.send({ method: 'GET', path: trpcQuery('getPlant', `{"id":${spelling.text}}`), headers: JSON_WITH_TOKEN });
        } else {
          const name = spelling.denotes.kind === 'int64' ? nameOf(spelling.denotes.value) : 'refused';
          answer = await create(service, way, `{"id":${spelling.text},"name":"${name}"}`);
        }
        if (refusal !== undefined) {
          expect(answer.status).toBe(400);
          expect(messageOf(answer)).toBe(refusal);
          return;
        }
        const id = spelling.denotes.kind === 'int64' ? spelling.denotes.value : 0n;
        if (way === 'query') {
          expect([200, 404]).toContain(answer.status);
          if (answer.status === 200) expect(exactJson(answer.body)).toEqual({ result: { data: { id: fromBigInt(id), name: nameOf(id) } } });
          else expect(messageOf(answer)).toBe(`no plant with id ${id}`);
          return;
        }
        expect(answer.status, answer.body).toBe(200);
        accepted.add(id);
      }),
      { seed: SEED, numRuns: 200 },
    );
    await service.checkAfterBatch();
    await expectStoredExactly(service, accepted);
  }, 60_000);
});
