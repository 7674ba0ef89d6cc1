import { randomInt, randomUUID } from 'node:crypto';

/** Two parts: the low one, under 2^28, is written digit by digit per request; the high one only when the low one carries. */
const LOW_DIGITS = 7;
const LOW_LIMIT = 16 ** LOW_DIGITS;
const HIGH_DIGITS = 5;
const HIGH_LIMIT = 16 ** HIGH_DIGITS;
const ID_LENGTH = 36;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

export interface CounterStart {
  high: number;
  low: number;
}

/**
 * UUIDv8 (RFC 9562): ids need to be unique, not unguessable, so a random prefix per app and a counter, not
 * `randomUUID()`. Written into one buffer and read out whole: Node checks each header value with a regular expression,
 * which must first copy a string joined with `+`.
 */
export function createRequestIdGenerator(
  start: CounterStart = { high: randomInt(HIGH_LIMIT / 2), low: randomInt(LOW_LIMIT) },
): () => string {
  let prefix = randomPrefix();
  let { high, low } = start;
  const text = Buffer.alloc(ID_LENGTH);
  text.write(prefix + hex(high, HIGH_DIGITS), 'latin1');
  return () => {
    if (low === LOW_LIMIT) {
      low = 0;
      high += 1;
      // After 2^48 ids, a new prefix: the ids after it cannot meet the ones before.
      if (high === HIGH_LIMIT) {
        prefix = randomPrefix();
        high = 0;
      }
      text.write(prefix + hex(high, HIGH_DIGITS), 'latin1');
    }
    let rest = low++;
    for (let at = ID_LENGTH - 1; at >= ID_LENGTH - LOW_DIGITS; at--) {
      text[at] = HEX_DIGITS[rest & 15] as number;
      rest >>>= 4;
    }
    return text.toString('latin1');
  };
}

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** A random UUID's first 24 characters, its version digit (4) made 8; the variant bits stay. */
function randomPrefix(): string {
  const uuid = randomUUID();
  return `${uuid.slice(0, 14)}8${uuid.slice(15, 24)}`;
}
