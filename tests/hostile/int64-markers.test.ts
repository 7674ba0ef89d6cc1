// The int64 marker (schemas/int64-json.ts: NUL, a per-process key, `:`, digits) seen from outside,
// as an attacker would try it, in both modes: the key never shows in an answer or in the log at
// trace level, and no client text (one that guesses at the key, or uses any key the service let
// slip) is read back as anything but what it wrote. After each batch the process must still
// answer /healthz and have answered no 5xx.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAST_PATH_MODES,
  JSON_WITH_TOKEN,
  readBack,
  startHostileService,
  trpcQuery,
  type Answer,
  type HostileService,
  type Sent,
} from '../helpers/hostile-service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const BIG = '9223372036854775807';

/** A marker as JSON text writes it (answers, log lines) or in a URL's query: its key is 18 hex digits. */
const MARKER_KEY = /(?:\\u0000|%5Cu0000|%00)([0-9a-f]{18})(?::|%3A)/gi;
const keysIn = (text: string) => [...text.matchAll(MARKER_KEY)].map((match) => (match[1] ?? '').toLowerCase());

/** Requests with big ids that once let the key slip: the rewritten URL in the log, parse errors quoting rewritten text. */
const PROBES: Sent[] = [
  { method: 'GET', path: trpcQuery('getPlant', `{"id":${BIG}}`) },
  { method: 'GET', path: trpcQuery('getPlant', `{"id":${BIG}x}`) },
  { method: 'GET', path: trpcQuery('getPlant', `{"id":${BIG}"}`) },
  { method: 'GET', path: `/trpc/getPlant?batch=1&input=${encodeURIComponent(`{"0":{"id":${BIG}}}`)}` },
  { method: 'GET', path: `/trpc/getPlant?batch=1&input=${encodeURIComponent(`{"0":{"id":${BIG}}x`)}` },
  { method: 'GET', path: trpcQuery('listPlants', `{"after":${BIG},"limit":${BIG}}`) },
  { method: 'POST', path: '/trpc/createPlant', body: `{"id":${BIG}x}` },
  { method: 'POST', path: '/trpc/createPlant', body: `{"id":${BIG},"name":}` },
  { method: 'POST', path: '/trpc/createPlant?batch=1', body: `{"0":{"id":${BIG}"}}` },
  { method: 'POST', path: '/plants', body: `{"id":${BIG}x}` },
  { method: 'POST', path: '/plants', body: `{"id":${BIG},"name":1,"tag":2,"x":${BIG}}` },
  { method: 'POST', path: '/nope', body: `{"id":${BIG}` },
];

/** A random key, as an attacker guesses one. */
const guessedKey = fc.stringMatching(/^[0-9a-f]{18}$/);

/** Names built from what markers are made of. */
const markerLikeName = fc.oneof(
  fc.tuple(guessedKey, fc.constantFrom('5', '-5', BIG, 'abc', '', '5:5')).map(([key, digits]) => `\u0000${key}:${digits}`),
  fc.string({ unit: fc.constantFrom('\u0000', ':', '5', 'a', 'f', '0', '\\', '"', ' '), minLength: 1, maxLength: 40 }),
);

describe.each(FAST_PATH_MODES)('int64 markers from outside, FAST_PATH=%s, the built service', (mode) => {
  let service: HostileService;
  const answers: Answer[] = [];
  let nextId = 1;
  beforeAll(async () => {
    service = await startHostileService({ FAST_PATH: mode });
  });
  afterAll(async () => {
    await service.stop();
  });

  /** Creates a plant with this name over REST or /trpc; when accepted, it must read back exactly so. */
  async function storeAndReadBack(name: string, tag: string | undefined, way: 'rest' | 'trpc'): Promise<void> {
    const id = BigInt(nextId++);
    const plant = { id: Number(id), name, ...(tag !== undefined && { tag }) };
    const answer = await service.send({
      method: 'POST',
      path: way === 'rest' ? '/plants' : '/trpc/createPlant',
      body: JSON.stringify(plant),
      headers: JSON_WITH_TOKEN,
    });
    answers.push(answer);
    expect(answer.status, answer.body).toBeLessThan(500);
    if (answer.status !== 200) return;
    const { rest, trpc } = await readBack(service, id);
    expect(JSON.parse(rest.body)).toEqual(plant);
    expect(JSON.parse(trpc.body)).toEqual({ result: { data: plant } });
  }

  it('the marker key shows in no answer and in no line of the log, at trace level', async () => {
    for (const probe of PROBES) answers.push(await service.send({ ...probe, headers: JSON_WITH_TOKEN }));
    await service.checkAfterBatch();
    expect(answers.flatMap(({ body }) => keysIn(body))).toEqual([]);
    expect(keysIn(service.output())).toEqual([]);
  });

  it('names made with any key the service let slip, and with guessed ones, read back as written', async () => {
    const slipped = new Set([...answers.flatMap(({ body }) => keysIn(body)), ...keysIn(service.output())]);
    for (const key of [...slipped, 'feedc0defeedc0de00']) {
      for (const digits of ['5', BIG, 'abc', '']) {
        await storeAndReadBack(`\u0000${key}:${digits}`, undefined, 'rest');
        await storeAndReadBack('Fern', `\u0000${key}:${digits}`, 'trpc');
      }
    }
    await service.checkAfterBatch();
  });

  it('generated names and tags of NULs, colons, hex digits and escapes read back as written', async () => {
    await fc.assert(
      fc.asyncProperty(
        markerLikeName,
        fc.option(markerLikeName, { nil: undefined }),
        fc.constantFrom<'rest' | 'trpc'>('rest', 'trpc'),
        storeAndReadBack,
      ),
      { seed: SEED, numRuns: 100 },
    );
    await service.checkAfterBatch();
    expect(keysIn(service.output())).toEqual([]);
  }, 60_000);
});
