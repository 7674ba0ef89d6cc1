// Deeply nested JSON sent to the built service from outside, in both modes: the body that ended
// the process, then generated nesting of arrays and objects in every field and position, in
// bodies and tRPC query inputs. After each batch the process must still answer /healthz, have
// answered no 5xx, and have stored nothing.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../schemas/json-text.js';
import {
  FAST_PATH_MODES,
  JSON_WITH_TOKEN,
  messageOf,
  startHostileService,
  trpcQuery,
  type HostileService,
  type Sent,
} from '../helpers/hostile-service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const TOO_DEEP = `is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`;
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Every route that reads a body, or would: a REST operation, an unknown path, a delete, a preflight, tRPC. */
const BODY_ROUTES = [
  ['POST', '/plants'],
  ['POST', '/nope'],
  ['DELETE', '/plants/1'],
  ['OPTIONS', '/healthz'],
  ['POST', '/trpc/createPlant'],
] as const;

/** The one plant this suite stores, so that "nothing else stored" means something. */
const CONTROL = { id: 777_000, name: 'control' };

/**
 * A value nested up to `maxDepth` levels: its openers cycle through a pattern, around an innermost
 * value. Depths cluster around the limit; a query's input stays short enough for a URL.
 */
const nestedValue = (maxDepth: number) =>
  fc
    .tuple(
      fc.array(fc.constantFrom('[', '{"k":', '[1,', '{"a":1,"b":'), { minLength: 1, maxLength: 3 }),
      fc.oneof(
        fc.integer({ min: 1, max: 130 }),
        fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
        fc.integer({ min: 130, max: maxDepth }),
      ),
      fc.constantFrom('1', '9223372036854775807', '-9223372036854775809', '"x"', '[]', '{}', '4.9999999999999999', 'null', '"\\u0000"'),
    )
    .map(([pattern, depth, innermost]) => {
      const openers = Array.from({ length: depth }, (_, level) => pattern[level % pattern.length] ?? '[');
      const closers = openers.map((opener) => (opener.startsWith('[') ? ']' : '}')).reverse();
      return openers.join('') + innermost + closers.join('');
    });

/** How deep a generated text nests (its strings hold no brackets). */
function depthOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of text) {
    if (char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ']' || char === '}') depth -= 1;
  }
  return deepest;
}

/** A plant body with the nested value in one of its fields, as an extra field, or as the body itself. */
const plantWithNesting = (maxDepth: number) =>
  fc.tuple(fc.constantFrom('id', 'name', 'tag', 'extra', 'body'), nestedValue(maxDepth)).map(([position, value]) => {
    if (position === 'body') return value;
    const fields = { id: '777001', name: '"n"', [position]: value };
    return `{${Object.entries(fields)
      .map(([key, text]) => `"${key}":${text}`)
      .join(',')}}`;
  });

const IN_BODY = 1_200;
const IN_URL = 250;

/** Where the nested text goes: a body of a route that reads one, a tRPC batch, a tRPC query's input. */
const hostileRequest: fc.Arbitrary<{ sent: Sent; depth: number; creates: boolean }> = fc
  .constantFrom('rest', 'trpc', 'batch', 'query', 'list-query', 'other')
  .chain((way) => fc.tuple(fc.constant(way), plantWithNesting(way.endsWith('query') ? IN_URL : IN_BODY), fc.constantFrom(...BODY_ROUTES)))
  .map(([way, text, [method, path]]) => {
    const depth = depthOf(text);
    switch (way) {
      case 'rest':
        return { sent: { method: 'POST', path: '/plants', body: text, headers: JSON_WITH_TOKEN }, depth, creates: true };
      case 'trpc':
        return { sent: { method: 'POST', path: '/trpc/createPlant', body: text, headers: JSON_WITH_TOKEN }, depth, creates: true };
      case 'batch':
        return {
          sent: { method: 'POST', path: '/trpc/createPlant?batch=1', body: `{"0":${text}}`, headers: JSON_WITH_TOKEN },
          depth: depth + 1,
          creates: true,
        };
      case 'query':
        return { sent: { method: 'GET', path: trpcQuery('getPlant', text), headers: JSON_WITH_TOKEN }, depth, creates: false };
      case 'list-query':
        return { sent: { method: 'GET', path: trpcQuery('listPlants', text), headers: JSON_WITH_TOKEN }, depth, creates: false };
      default:
        return {
          sent: { method, path, body: text, headers: JSON_WITH_TOKEN },
          depth,
          creates: path === '/plants' || path === '/trpc/createPlant',
        };
    }
  });

describe.each(FAST_PATH_MODES)('deeply nested JSON, FAST_PATH=%s, the built service', (mode) => {
  let service: HostileService;
  beforeAll(async () => {
    service = await startHostileService({ FAST_PATH: mode });
    const stored = await service.send({ method: 'POST', path: '/plants', body: JSON.stringify(CONTROL), headers: JSON_WITH_TOKEN });
    expect(stored.status).toBe(200);
  });
  afterAll(async () => {
    await service.stop();
  });

  it.each([
    ['with an integer beyond 2^53', `{"id":9223372036854775807,"tag":${nested(8_000)}}`],
    ['without one', `{"id":1,"tag":${nested(8_000)}}`],
  ])('the 8,000-level body %s, to every route that reads a body, is refused with 400 and leaves the process up', async (_kind, body) => {
    for (const [method, path] of BODY_ROUTES) {
      const answer = await service.send({ method, path, body, headers: JSON_WITH_TOKEN });
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, `${method} ${path}`).toBeLessThan(500);
      if (path === '/plants' || path === '/trpc/createPlant') expect(messageOf(answer)).toBe(`the request body ${TOO_DEEP}`);
    }
    await service.checkAfterBatch();
    expect(await service.storedPlants()).toEqual([CONTROL]);
  });

  it('a tRPC query input nested 2,000 levels is refused with BAD_REQUEST in words for people', async () => {
    for (const input of [nested(2_000), `{"id":9223372036854775807,"x":${nested(2_000)}}`]) {
      const answer = await service.send({ method: 'GET', path: trpcQuery('getPlant', input), headers: JSON_WITH_TOKEN });
      expect(answer.status).toBe(400);
      expect(messageOf(answer)).toBe(`the input parameter ${TOO_DEEP}`);
    }
    await service.checkAfterBatch();
  });

  it('generated nesting in every field and position: 4xx for each, within the limit or past it, and nothing stored', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest, async ({ sent, depth, creates }) => {
        const answer = await service.send(sent);
        expect(answer.status).toBeLessThan(500);
        if (creates) expect(answer.status).toBeGreaterThanOrEqual(400);
        // Past the limit the refusal says so; within it, the schema refuses the shape.
        if (creates && depth > MAX_JSON_DEPTH) expect(messageOf(answer)).toMatch(TOO_DEEP);
        if (depth <= MAX_JSON_DEPTH) expect(messageOf(answer) ?? '').not.toMatch(TOO_DEEP);
      }),
      { seed: SEED, numRuns: 150 },
    );
    await service.checkAfterBatch();
    expect(await service.storedPlants()).toEqual([CONTROL]);
  }, 60_000);
});
