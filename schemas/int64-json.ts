import { endOfString, JsonTextError, MAX_JSON_DEPTH, scanJsonText, type TextSpan } from './json-text.js';

/**
 * int64 values across JSON, exactly, on Node 20 (which has neither `JSON.rawJSON` nor source
 * text in `JSON.parse` revivers): JSON.parse rounds integers beyond ±(2^53−1), and
 * JSON.stringify throws on a bigint.
 *
 * So such integers travel through JSON.parse and JSON.stringify as marker strings: a NUL
 * character, a random key made at start-up, `:` and the digits. `markText` rewrites the big
 * integers of a client's JSON text as markers before it is parsed, and `revive` turns the markers
 * of the parsed value into bigints; `mark` turns bigints into markers before a value is
 * stringified, and `unmarkText` writes the markers of the text back as plain JSON numbers.
 * docs/decisions/exact-int64-over-json.md says why markers and why they cannot be forged: in
 * short, `markText` refuses client text holding a string with the marker prefix, so every
 * marker a parsed value holds was made by `markText` or `mark`.
 *
 * `markText` also settles what a number token denotes, exactly, where a double would not: an
 * integer (`1.0`, `1e3` and `9.007199254740993e15` are read as the integers they write) or not.
 * A token that is not an integer but that a double rounds to one (`4.9999999999999999`,
 * `1e-400`, `9007199254740991.4`) is written as `0.5` (`-0.5`): every reader (this service's
 * parser, tRPC's and trpc-to-openapi's own JSON.parse) then gets a number that is not an
 * integer, as the client wrote, and every integer field refuses it in its own words ("id must be
 * an integer"). Only the fact that it is not an integer survives; no field of the interface takes
 * fractions, and a marker would have had to become some other odd value on the way in.
 *
 * Text that needs neither is parsed and written as it is: an ordinary body pays for one scan
 * (schemas/json-text.ts, which also bounds nesting), not a second parse.
 */
export interface Int64Json {
  /**
   * JSON text as a parser must see it: each integer beyond ±(2^53−1) a marker, each non-integer
   * a double would round to an integer `0.5`; the text itself when it has none. Throws
   * `JsonTextError` for text nested too deeply or holding a string with the marker prefix.
   * Rewritten text is valid exactly when the client's text is.
   */
  markText: (text: string) => string;
  /**
   * `markText` for a parser this service does not hold (tRPC's): when the text had to be
   * rewritten, it is first parsed as the client sent it, so a parser's error can only ever quote
   * the client's own text, never a marker. Throws the SyntaxError of the client's text.
   */
  markValidText: (text: string) => string;
  /** A value parsed from marked text with each marker turned into its bigint (in place). */
  revive: (value: unknown) => unknown;
  /** A value with each bigint turned into a marker; the value itself when it holds none. */
  mark: (value: unknown) => unknown;
  /** JSON text with each marker written back as the JSON number it stands for (as a JSON string of its digits, with `asStrings`). */
  unmarkText: (text: string, options?: { asStrings?: boolean }) => string;
  /** Whether JSON text holds markers (cheap: a substring test). */
  hasMarkers: (text: string) => boolean;
  /** Whether text (a decoded query parameter, say) holds the marker prefix: NUL, the key and `:`. See `reservedTextError`. */
  holdsMarkerPrefix: (text: string) => boolean;
  /**
   * `JSON.parse` (or `parser`), exact for every integer, refusing what `markText` refuses. A
   * parse error quotes the client's text.
   */
  parse: (text: string, parser?: (text: string) => unknown) => unknown;
  /** `JSON.stringify`, writing bigints as JSON numbers. */
  stringify: (value: unknown) => string;
  /** The same, as a tRPC data transformer: both ends of /trpc use it. */
  transformer: { serialize: (value: unknown) => unknown; deserialize: (value: unknown) => unknown };
}

/** Past 20 digits an integer is beyond int64: it is left to JSON.parse, and the schema refuses its double. */
const MAX_DIGITS = 20;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** The digits a marker may stand for. */
const MARKED_DIGITS = /^-?\d{1,20}$/;

/** The refusal of client text that holds the marker prefix, which only a client that learned the key could write. */
export const reservedTextError = () => new JsonTextError('holds a string the service reserves: a NUL character followed by its internal int64 marker');

export function createInt64Json(key: string = randomKey()): Int64Json {
  const prefix = `\u0000${key}:`;
  const textPrefix = `\\u0000${key}:`;
  const markerInText = new RegExp(`"\\\\u0000${key}:(-?\\d+)"`, 'g');

  /** A token's replacement for every parser: a marker, `0.5` for an inexact non-integer; undefined to keep it. */
  const replacementOf = (token: string): string | undefined => {
    const value = exactValue(token);
    if (typeof value === 'bigint') return value > MAX_SAFE || value < -MAX_SAFE ? `"${textPrefix}${value}"` : undefined;
    if (value === NOT_AN_INTEGER && Number.isInteger(Number(token))) return token.startsWith('-') ? '-0.5' : '0.5';
    return undefined;
  };

  const markText = (text: string): string => {
    const findings = scanJsonText(text);
    if (findings === undefined) return text;
    for (const start of findings.nulStrings) {
      if (decodedString(text, start)?.includes(prefix) === true) throw reservedTextError();
    }
    return findings.numbers.length === 0 ? text : rewrite(text, findings.numbers, replacementOf);
  };

  const markValidText = (text: string): string => {
    const marked = markText(text);
    if (marked !== text) JSON.parse(text);
    return marked;
  };

  /** The bigint of a marker string; any other string as it is (a marker is never forged, and never throws). */
  const reviveString = (text: string): unknown => {
    if (!text.startsWith(prefix)) return text;
    const digits = text.slice(prefix.length);
    return MARKED_DIGITS.test(digits) ? BigInt(digits) : text;
  };

  /** Iterative: the value may be a client's, and a walk over it must not depend on its depth. */
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

  /**
   * Recursive, but bounded: it descends only into arrays and objects that hold a bigint, and
   * refuses a value nested deeper than MAX_JSON_DEPTH (or cyclic). A client's value reaches it
   * only from text that `markText` has bounded; the service's own answers are shallow.
   */
  const mark = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'bigint') return `${prefix}${value}`;
    if (!isContainer(value) || !holdsBigint(value, depth + 1)) return value;
    if (Array.isArray(value)) return value.map((item: unknown) => mark(item, depth + 1));
    // Only plain data reaches JSON; defineProperty-style entries keep a "__proto__" key a key.
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, mark(item, depth + 1)]));
  };

  const unmarkText = (text: string, { asStrings = false } = {}): string =>
    text.includes(textPrefix) ? text.replace(markerInText, asStrings ? '"$1"' : '$1') : text;

  const parse = (text: string, parser: (text: string) => unknown = JSON.parse): unknown => {
    const marked = markText(text);
    if (marked === text) return parser(text);
    let parsed: unknown;
    try {
      parsed = parser(marked);
    } catch (error) {
      // The same failure, in the words of the client's own text (its positions, no marker).
      parser(text);
      throw error;
    }
    return revive(parsed);
  };

  return {
    markText,
    markValidText,
    revive,
    mark: (value) => mark(value),
    unmarkText,
    hasMarkers: (text) => text.includes(textPrefix),
    holdsMarkerPrefix: (text) => text.includes(prefix),
    parse,
    stringify: (value) => unmarkText(JSON.stringify(mark(value))),
    transformer: { serialize: (value) => mark(value), deserialize: revive },
  };
}

/** The service's and the typed client's one instance. */
export const int64Json = createInt64Json();

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

function holdsBigint(value: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH) throw new RangeError(`a value nested more than ${MAX_JSON_DEPTH} levels deep (or cyclic) cannot be written as JSON`);
  for (const item of Object.values(value) as unknown[]) {
    if (typeof item === 'bigint') return true;
    if (isContainer(item) && holdsBigint(item, depth + 1)) return true;
  }
  return false;
}

/** The text with each span replaced by `replacementOf(its token)`, where that is defined. */
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

/** What the string whose quote is at `start` decodes to; undefined when it is malformed (the parser refuses it then). */
function decodedString(text: string, start: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, endOfString(text, start))) as string;
  } catch {
    return undefined;
  }
}

const NOT_AN_INTEGER = 'not an integer';
const BEYOND_DIGITS = 'beyond 20 digits';
/** A JSON number token, in parts. */
const NUMBER_PARTS = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * What a JSON number token denotes, exactly: the integer (`12`, `1.0`, `1.2e3`, `-9e18`), or that
 * it is not an integer, or an integer of more than MAX_DIGITS digits; undefined when it is not a
 * JSON number (the parser refuses it). Never builds more than MAX_DIGITS digits, whatever the
 * exponent.
 */
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
