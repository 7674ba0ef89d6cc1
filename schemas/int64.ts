import { z } from 'zod';

/** A `number` while a safe integer, a `bigint` beyond: only a JavaScript caller can hand over a rounded number, and it is refused. */
export type Int64 = number | bigint;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const INT64_RANGE = `an integer from ${INT64_MIN} to ${INT64_MAX}`;

export function isInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** Also takes digits as text (path and query parameters). */
export function toInt64(value: unknown): Int64 | undefined {
  if (isInt64(value)) return value;
  if (typeof value !== 'string' || !/^-?(0|[1-9]\d{0,18})$/.test(value)) return undefined;
  // At most 15 digits is always a safe integer: no bigint needed.
  if (value.length <= 15) return Number(value);
  const exact = BigInt(value);
  return exact < INT64_MIN || exact > INT64_MAX ? undefined : fromBigInt(exact);
}

export function fromBigInt(value: bigint): Int64 {
  return Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

const outOfRange = (name: string) => `${name} must be ${INT64_RANGE}`;

export function int64Problem(name: string, value: unknown): string {
  if (value === undefined) return `${name} is required`;
  // ±Infinity: an integer too large for a double (JSON `1e400`), not a fraction.
  if (typeof value === 'bigint' || value === Infinity || value === -Infinity) return outOfRange(name);
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${name} must be an integer`;
  if (Math.abs(value) >= 2 ** 63) return outOfRange(name);
  return (
    `${name} must be ${INT64_RANGE}, exactly: ${value} is a JavaScript number beyond ±(2^53−1), which is rounded; ` +
    'pass it as a bigint (or, over HTTP, as the exact digits of a JSON number)'
  );
}

const EXACT_IN_JAVASCRIPT =
  "JavaScript's JSON.parse rounds such a value (9007199254740993 becomes 9007199254740992, another id): " +
  'use lossless-json, or JSON.parse with a reviver that reads context.source (Node.js 22+, current browsers)';

/** A JSON integer, never a string; the OpenAPI document adds the exact bounds zod's JSON Schema cannot hold. */
export function int64Field(name: string, meta: { description: string; examples: Int64[] }) {
  const description =
    `${meta.description}: an int64, written as a plain JSON number. Values beyond ±(2^53−1) need a ` +
    `JSON parser that keeps big integers; ${EXACT_IN_JAVASCRIPT}.`;
  return z
    .custom<Int64>(isInt64, { error: (failure) => int64Problem(name, failure.input) })
    .meta({ ...meta, description, override: { type: 'integer', format: 'int64' } });
}

/**
 * Digits of a taken value written otherwise (`042`, `+42`) are named as such, not as out of range; undefined for text
 * that is no integer, or one `inRange` refuses.
 */
export function writtenOtherwise(name: string, text: string, inRange: (value: bigint) => boolean): string | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return inRange(value) ? `${name} must be written plainly, as ${value}: no leading zero or plus sign` : undefined;
}

const textProblem = (name: string, text: string): string => writtenOtherwise(name, text, isInt64) ?? outOfRange(name);

/** Over HTTP parameters are text, so digits are taken, exact at any size. */
export function int64Parameter(name: string, description: string) {
  const exactly =
    `${description}: an int64, as its decimal digits. Values beyond ±(2^53−1) need a JSON parser that ` +
    `keeps big integers where the id is read from an answer; ${EXACT_IN_JAVASCRIPT}. Send the digits as read, never a rounded number.`;
  return z
    .custom<Int64 | string>((value) => toInt64(value) !== undefined, {
      // Text: how to write it, or the range. A query that repeats it arrives as an array.
      error: (failure) =>
        typeof failure.input === 'string'
          ? textProblem(name, failure.input)
          : Array.isArray(failure.input)
            ? `${name} may be given once`
            : int64Problem(name, failure.input),
    })
    .meta({ description: exactly, override: { type: 'integer', format: 'int64' } })
    .transform((value) => toInt64(value) as Int64);
}
