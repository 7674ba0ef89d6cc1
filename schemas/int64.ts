import { z } from 'zod';

/**
 * int64, exactly. A JavaScript number is exact only up to ±(2^53−1), so an int64 value is a
 * `number` while it is a safe integer and a `bigint` beyond (any bigint in range is accepted
 * too). JSON bodies reach these schemas exact: the service reads integers beyond 2^53 as
 * bigints, and a number that is not an integer as one that is not (schemas/int64-json.ts), so
 * only a JavaScript caller can hand over a rounded number, and that is refused, never stored
 * rounded.
 */
export type Int64 = number | bigint;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const INT64_RANGE = `an integer from ${INT64_MIN} to ${INT64_MAX}`;

export function isInt64(value: unknown): value is Int64 {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** The int64 a value stands for: an int64 itself, or its digits as text (path and query parameters); else undefined. */
export function toInt64(value: unknown): Int64 | undefined {
  if (isInt64(value)) return value;
  if (typeof value !== 'string' || !/^-?(0|[1-9]\d{0,18})$/.test(value)) return undefined;
  const exact = BigInt(value);
  return exact < INT64_MIN || exact > INT64_MAX ? undefined : fromBigInt(exact);
}

/** An exact integer in its one `Int64` form: a number while it is a safe integer, else the bigint. */
export function fromBigInt(value: bigint): Int64 {
  return Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

const outOfRange = (name: string) => `${name} must be ${INT64_RANGE}`;

/** Why `value` is not an int64, said of the field `name`. */
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

/** How a JavaScript client keeps an int64 beyond ±(2^53−1) exact, for every description of one. */
const EXACT_IN_JAVASCRIPT =
  "JavaScript's JSON.parse rounds such a value (9007199254740993 becomes 9007199254740992, another id): " +
  'use lossless-json, or JSON.parse with a reviver that reads context.source (Node.js 22+, current browsers)';

/**
 * An int64 field of a JSON body: a JSON integer, never a string. Its OpenAPI form is
 * `type: integer, format: int64`; server/openapi/document.ts adds the exact bounds, which
 * zod's JSON Schema output cannot hold. Its description says how to keep it exact.
 */
export function int64Field(name: string, meta: { description: string; examples: Int64[] }) {
  const description = `${meta.description}: an int64, written as a plain JSON number. Values beyond ±(2^53−1) need a JSON parser that keeps big integers; ${EXACT_IN_JAVASCRIPT}.`;
  return z
    .custom<Int64>(isInt64, { error: (failure) => int64Problem(name, failure.input) })
    .meta({ ...meta, description, override: { type: 'integer', format: 'int64' } });
}

/**
 * An int64 path or query parameter. Over HTTP such parameters are text, so digits are taken
 * ("42", exactly at any size), and so is a number or bigint (tRPC, in process). The value
 * handed on is an `Int64`. Its description says how to keep it exact.
 */
export function int64Parameter(name: string, description: string) {
  const exactly = `${description}: an int64, as its decimal digits. Values beyond ±(2^53−1) need a JSON parser that keeps big integers where the id is read from an answer; ${EXACT_IN_JAVASCRIPT}. Send the digits as read, never a rounded number.`;
  return z
    .custom<Int64 | string>((value) => toInt64(value) !== undefined, {
      // Text that is not an int64's digits: the range says what would be.
      error: (failure) => (typeof failure.input === 'string' ? outOfRange(name) : int64Problem(name, failure.input)),
    })
    .meta({ description: exactly, override: { type: 'integer', format: 'int64' } })
    .transform((value) => toInt64(value) as Int64);
}
