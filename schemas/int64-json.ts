import { fromBigInt } from './int64.js';
import { endOfString, JsonTextError, MAX_JSON_DEPTH, scanJsonText, type TextSpan } from './json-text.js';

/**
 * int64 across JSON exactly: `JSON.rawJSON` and revivers' source text where the runtime has them; else, and for parsers
 * the service does not hold (tRPC's), big integers travel as marker strings, unforgeable since `markText` refuses the prefix.
 * A non-integer that a double rounds to an integer is read as ±0.5, so integer fields still refuse it.
 */
export interface Int64Json {
  /** Big integers as markers, inexact non-integers as `0.5`; throws `JsonTextError` (too deep, or the marker prefix). */
  markText: (text: string) => string;
  /** For tRPC's parser: rewritten text is first parsed as sent, so a parse error quotes the client's text, never a marker. */
  markValidText: (text: string) => string;
  /** In place. */
  revive: (value: unknown) => unknown;
  mark: (value: unknown) => unknown;
  /** Safe integers as numbers; beyond, raw JSON numbers where the runtime has `JSON.rawJSON`, else markers for `unmarkText`. */
  writable: (value: unknown) => unknown;
  writesMarkers: boolean;
  unmarkText: (text: string) => string;
  hasMarkers: (text: string) => boolean;
  holdsMarkerPrefix: (text: string) => boolean;
  /** `parser` must hand its reviver to JSON.parse; a parse error quotes the client's text. */
  parse: (text: string, parser?: JsonParser) => unknown;
  stringify: (value: unknown) => string;
  transformer: { serialize: (value: unknown) => unknown; deserialize: (value: unknown) => unknown };
}

export type JsonParser = (text: string, reviver?: JsonReviver) => unknown;
type JsonReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

const nativeRawJson = (JSON as { rawJSON?: (text: string) => object }).rawJSON;

/** Past 20 digits an integer is beyond int64: left to JSON.parse, whose double the schema refuses. */
const MAX_DIGITS = 20;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MARKED_DIGITS = /^-?\d{1,20}$/;

/** Only a client that learned the random key could write the marker prefix. */
export const reservedTextError = () =>
  new JsonTextError('holds a string the service reserves: a NUL character followed by its internal int64 marker');

export interface Int64JsonOptions {
  key?: string;
  /** As on a runtime without `JSON.rawJSON`, so that path can be tested anywhere. */
  markersOnly?: boolean;
}

export function createInt64Json({ key = randomKey(), markersOnly = false }: Int64JsonOptions = {}): Int64Json {
  const rawJson = markersOnly ? undefined : nativeRawJson;
  const prefix = `\u0000${key}:`;
  const textPrefix = `\\u0000${key}:`;
  const markerInText = new RegExp(`"\\\\u0000${key}:(-?\\d+)"`, 'g');

  const replacementOf = (token: string): string | undefined => {
    const reading = exactReading(token);
    return typeof reading === 'bigint' ? `"${textPrefix}${reading}"` : reading?.toString();
  };

  const numbersToRead = (text: string): TextSpan[] | undefined => {
    const findings = scanJsonText(text);
    if (findings === undefined) return undefined;
    for (const start of findings.nulStrings) {
      if (decodedString(text, start)?.includes(prefix) === true) throw reservedTextError();
    }
    return findings.numbers.length === 0 ? undefined : findings.numbers;
  };

  const markText = (text: string): string => {
    const numbers = numbersToRead(text);
    return numbers === undefined ? text : rewrite(text, numbers, replacementOf);
  };

  const markValidText = (text: string): string => {
    const marked = markText(text);
    if (marked !== text) JSON.parse(text);
    return marked;
  };

  /** Never throws: a string that is not a well-formed marker stays a string. */
  const reviveString = (text: string): unknown => {
    if (!text.startsWith(prefix)) return text;
    const digits = text.slice(prefix.length);
    return MARKED_DIGITS.test(digits) ? BigInt(digits) : text;
  };

  /** Iterative: a client's value must not exhaust the stack by its depth. */
  const revive = (value: unknown): unknown => {
    if (typeof value === 'string') return reviveString(value);
    if (!isContainer(value)) return value;
    let pending: object[] | undefined;
    for (let current: object | undefined = value; current !== undefined; current = pending?.pop()) {
      const record = current as Record<string, unknown>;
      for (const name of Object.keys(record)) {
        const item = record[name];
        if (typeof item === 'string') {
          if (item.startsWith(prefix)) record[name] = reviveString(item);
        } else if (isContainer(item)) {
          (pending ??= []).push(item);
        }
      }
    }
    return value;
  };

  const toMarker = (value: bigint): string => `${prefix}${value}`;
  // A safe integer is written exactly as a number, and costs neither a marker to write back nor a raw JSON object.
  const toWritable = (value: bigint): unknown => {
    const id = fromBigInt(value);
    if (typeof id === 'number') return id;
    return rawJson === undefined ? toMarker(value) : rawJson(value.toString());
  };
  const writable = (value: unknown): unknown => withBigints(value, toWritable);

  const unmarkText = (text: string): string => (text.includes(textPrefix) ? text.replace(markerInText, '$1') : text);

  const parseMarked = (text: string, parser: JsonParser): unknown => {
    const marked = markText(text);
    if (marked === text) return parser(text);
    let parsed: unknown;
    try {
      parsed = parser(marked);
    } catch (error) {
      // Fail in the words of the client's own text, never a marker.
      parser(text);
      throw error;
    }
    return revive(parsed);
  };

  const parseFromSource = (text: string, parser: JsonParser): unknown =>
    numbersToRead(text) === undefined ? parser(text) : parser(text, readExactly);

  return {
    markText,
    markValidText,
    revive,
    mark: (value) => withBigints(value, toMarker),
    writable,
    writesMarkers: rawJson === undefined,
    unmarkText,
    hasMarkers: (text) => text.includes(textPrefix),
    holdsMarkerPrefix: (text) => text.includes(prefix),
    parse:
      rawJson === undefined
        ? (text, parser = JSON.parse) => parseMarked(text, parser)
        : (text, parser = JSON.parse) => parseFromSource(text, parser),
    stringify: (value) => {
      const text = JSON.stringify(writable(value));
      return rawJson === undefined ? unmarkText(text) : text;
    },
    transformer: { serialize: writable, deserialize: revive },
  };
}

export const int64Json = createInt64Json();

function readExactly(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return exactReading(context.source) ?? value;
}

function exactReading(token: string): bigint | number | undefined {
  const value = exactValue(token);
  if (typeof value === 'bigint') return value > MAX_SAFE || value < -MAX_SAFE ? value : undefined;
  if (value === NOT_AN_INTEGER && Number.isInteger(Number(token))) return token.startsWith('-') ? -0.5 : 0.5;
  return undefined;
}

/** Recursive but bounded: copies only what holds a bigint, and refuses depth beyond MAX_JSON_DEPTH (or a cycle). */
function withBigints(value: unknown, convert: (value: bigint) => unknown, depth = 1): unknown {
  if (typeof value === 'bigint') return convert(value);
  if (!isContainer(value)) return value;
  if (depth > MAX_JSON_DEPTH)
    throw new RangeError(`a value nested more than ${MAX_JSON_DEPTH} levels deep (or cyclic) cannot be written as JSON`);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const written = withBigints(item, convert, depth + 1);
      if (written !== item) (copy ??= value.slice())[index] = written;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const item = record[name];
    const written = withBigints(item, convert, depth + 1);
    // A spread copies a "__proto__" key as a plain key, which assignment then sets as one.
    if (written !== item) (copy ??= { ...record })[name] = written;
  }
  return copy ?? value;
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

function rewrite(text: string, spans: readonly TextSpan[], replacementOf: (token: string) => string | undefined): string {
  let out = '';
  let copiedUpTo = 0;
  for (const { start, end } of spans) {
    const replacement = replacementOf(text.slice(start, end));
    if (replacement === undefined) continue;
    out += text.slice(copiedUpTo, start) + replacement;
    copiedUpTo = end;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

function decodedString(text: string, start: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, endOfString(text, start))) as string;
  } catch {
    return undefined;
  }
}

const NOT_AN_INTEGER = 'not an integer';
const BEYOND_DIGITS = 'beyond 20 digits';
const NUMBER_PARTS = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Never builds more than MAX_DIGITS digits, whatever the exponent. */
function exactValue(token: string): bigint | typeof NOT_AN_INTEGER | typeof BEYOND_DIGITS | undefined {
  const parts = NUMBER_PARTS.exec(token);
  if (!parts) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = parts;
  const digits = whole + fraction;
  const first = firstNonZero(digits);
  if (first === -1) return 0n;
  const last = lastNonZero(digits);
  // The value is significant × 10^scale, with no zero at either end of `significant`.
  const significant = digits.slice(first, last + 1);
  const scale = Number(exponent) - fraction.length + (digits.length - 1 - last);
  if (scale < 0) return NOT_AN_INTEGER;
  if (significant.length + scale > MAX_DIGITS) return BEYOND_DIGITS;
  return BigInt(`${sign}${significant}${'0'.repeat(scale)}`);
}

function firstNonZero(digits: string): number {
  for (let i = 0; i < digits.length; i += 1) if (digits.charCodeAt(i) !== 0x30) return i;
  return -1;
}

function lastNonZero(digits: string): number {
  for (let i = digits.length - 1; i >= 0; i -= 1) if (digits.charCodeAt(i) !== 0x30) return i;
  return -1;
}

function randomKey(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
