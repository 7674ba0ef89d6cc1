import { randomInt, randomUUID } from 'node:crypto';

/**
 * The counter's share of an id is its last 48 bits (12 hex digits), kept in two parts: V8 formats
 * a small integer (under 2^30) much faster than a 48-bit one, so only the low part is formatted per
 * request.
 */
const LOW_DIGITS = 7;
const LOW_LIMIT = 16 ** LOW_DIGITS;
const HIGH_DIGITS = 5;
const HIGH_LIMIT = 16 ** HIGH_DIGITS;

/** Where a generator's counter starts: random, unless a test needs to see it carry. */
export interface CounterStart {
  high: number;
  low: number;
}

/**
 * Request ids (`X-Request-Id`, log lines, 500 bodies): unique per request and across instances,
 * shaped as a UUID, without drawing random bytes for every request.
 *
 * An id is a UUID of version 8 (RFC 9562's version for ids laid out by the application): 74
 * random bits drawn when the generator is made (once per app), then a counter of the app's
 * requests in the last 48 bits, as chi's and similar request-id middlewares count behind a
 * random prefix. Instances share a prefix only by chance (n instances: odds about n² / 2^75).
 * The counter starts at a random point, so an id does not tell how many requests came before it.
 * Why not `randomUUID()` per request: its random pool and formatting cost about half a microsecond
 * per request in the bench's profile, for ids that need to be unique, not unguessable.
 */
export function createRequestIdGenerator(
  start: CounterStart = { high: randomInt(HIGH_LIMIT / 2), low: randomInt(LOW_LIMIT) },
): () => string {
  let prefix = randomPrefix();
  let { high, low } = start;
  let fixed = prefix + hex(high, HIGH_DIGITS);
  return () => {
    if (low === LOW_LIMIT) {
      low = 0;
      high += 1;
      // After 2^48 ids, a new prefix: the ids after it cannot meet the ones before.
      if (high === HIGH_LIMIT) {
        prefix = randomPrefix();
        high = 0;
      }
      fixed = prefix + hex(high, HIGH_DIGITS);
    }
    return fixed + hex(low++, LOW_DIGITS);
  };
}

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** A random UUID's first 24 characters, its version digit (4) made 8; the variant bits stay. */
function randomPrefix(): string {
  const uuid = randomUUID();
  return `${uuid.slice(0, 14)}8${uuid.slice(15, 24)}`;
}
