import { randomInt, randomUUID } from 'node:crypto';

/** Two parts: V8 formats an integer under 2^30 much faster, so only the low part is formatted per request. */
const LOW_DIGITS = 7;
const LOW_LIMIT = 16 ** LOW_DIGITS;
const HIGH_DIGITS = 5;
const HIGH_LIMIT = 16 ** HIGH_DIGITS;

export interface CounterStart {
  high: number;
  low: number;
}

/** UUIDv8 (RFC 9562): ids need to be unique, not unguessable, so a random prefix per app and a counter, not `randomUUID()`. */
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
