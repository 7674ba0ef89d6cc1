import { endOfString, JsonTextError, MAX_JSON_DEPTH, scanJsonText, type TextSpan } from './json-text.js';

/**
 * int64 values across JSON, exactly: JSON.parse rounds integers beyond ±(2^53−1), and
 * JSON.stringify throws on a bigint.
 *
 * Where the runtime has `JSON.rawJSON` and revivers' source text (Node 22+, current browsers),
 * the service uses them: `parse` reads the number tokens a double would not read exactly from
 * their source text, and `writable` turns bigints into raw JSON numbers that any JSON.stringify
 * writes exactly, tRPC's and trpc-to-openapi's included.
 *
 * What still needs a workaround is JSON text that a parser this service does not hold reads
 * (tRPC's handler parses bodies and `input` itself, as `@trpc/client` parses answers): its
 * integers beyond 2^53 travel through that JSON.parse as marker strings, a NUL character, a
 * random key made at start-up, `:` and the digits. `markText` rewrites the big integers of the
 * text as markers before it is parsed, and `revive` turns the markers of the parsed value into
 * bigints. On Node 20, which has neither `JSON.rawJSON` nor source text, markers are the way out
 * too: `writable` turns bigints into markers and `unmarkText` writes the markers of the text
 * back as plain JSON numbers. docs/decisions/exact-int64-over-json.md says why markers, and why
 * they cannot be forged: in short, `markText` refuses client text holding a string with the
 * marker prefix, so every marker a parsed value holds was made by `markText` or `mark`.
 *
 * Reading a number token also settles what it denotes, exactly, where a double would not: an
 * integer (`1.0`, `1e3` and `9.007199254740993e15` are read as the integers they write) or not.
 * A token that is not an integer but that a double rounds to one (`4.9999999999999999`,
 * `1e-400`, `9007199254740991.4`) is read (and rewritten, for other parsers) as `0.5` (`-0.5`):
 * every reader then gets a number that is not an integer, as the client wrote, and every integer
 * field refuses it in its own words ("id must be an integer"). Only the fact that it is not an
 * integer survives; no field of the interface takes fractions.
 *
 * Text that needs neither is parsed as it is: an ordinary body pays for one scan
 * (schemas/json-text.ts, which also bounds nesting and finds NULs), on every runtime.
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
  /**
   * A value with each bigint turned into a marker; the value itself when it holds none. For a
   * value whose JSON text a parser this service does not hold reads back, before `revive`.
   */
  mark: (value: unknown) => unknown;
  /**
   * A value with each bigint made writable by any JSON.stringify, exactly: a raw JSON number
   * where the runtime has `JSON.rawJSON`, else a marker, which `unmarkText` then writes back as a
   * number in the text (see `writesMarkers`). The value itself when it holds no bigint.
   */
  writable: (value: unknown) => unknown;
  /** Whether `writable` writes markers (no `JSON.rawJSON` here): only then can an answer's text hold one. */
  writesMarkers: boolean;
  /** JSON text with each marker written back as the JSON number it stands for. */
  unmarkText: (text: string) => string;
  /** Whether JSON text holds markers (cheap: a substring test). */
  hasMarkers: (text: string) => boolean;
  /** Whether text (a decoded query parameter, say) holds the marker prefix: NUL, the key and `:`. See `reservedTextError`. */
  holdsMarkerPrefix: (text: string) => boolean;
  /**
   * `JSON.parse` (or `parser`, which must hand its reviver to JSON.parse), exact for every
   * integer, refusing what `markText` refuses. A parse error quotes the client's text.
   */
  parse: (text: string, parser?: JsonParser) => unknown;
  /** `JSON.stringify`, writing bigints as JSON numbers. */
  stringify: (value: unknown) => string;
  /** The same, as a tRPC data transformer: both ends of /trpc use it. */
  transformer: { serialize: (value: unknown) => unknown; deserialize: (value: unknown) => unknown };
}

/** A JSON parser that hands `reviver` to JSON.parse, as JSON.parse and secure-json-parse do. */
export type JsonParser = (text: string, reviver?: JsonReviver) => unknown;
/** A JSON.parse reviver; where the runtime has it, `context.source` is a primitive's source text. */
type JsonReviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** `JSON.rawJSON` where the runtime has it (with it come revivers' source text); feature-detected. */
const nativeRawJson = (JSON as { rawJSON?: (text: string) => object }).rawJSON;

/** Past 20 digits an integer is beyond int64: it is left to JSON.parse, and the schema refuses its double. */
const MAX_DIGITS = 20;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** The digits a marker may stand for. */
const MARKED_DIGITS = /^-?\d{1,20}$/;

/** The refusal of client text that holds the marker prefix, which only a client that learned the key could write. */
export const reservedTextError = () =>
  new JsonTextError('holds a string the service reserves: a NUL character followed by its internal int64 marker');

export interface Int64JsonOptions {
  /** The marker key; random by default. */
  key?: string;
  /** Work with markers alone, as on a runtime without `JSON.rawJSON` (so that path can be tested anywhere). */
  markersOnly?: boolean;
}

export function createInt64Json({ key = randomKey(), markersOnly = false }: Int64JsonOptions = {}): Int64Json {
  const rawJson = markersOnly ? undefined : nativeRawJson;
  const prefix = `\u0000${key}:`;
  const textPrefix = `\\u0000${key}:`;
  const markerInText = new RegExp(`"\\\\u0000${key}:(-?\\d+)"`, 'g');

  /** A token's replacement for every parser: a marker, `0.5` for an inexact non-integer; undefined to keep it. */
  const replacementOf = (token: string): string | undefined => {
    const reading = exactReading(token);
    return typeof reading === 'bigint' ? `"${textPrefix}${reading}"` : reading?.toString();
  };

  /** The number tokens of the text that JSON.parse may not read exactly; throws for text nested too deeply or holding the marker prefix. */
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

  const toMarker = (value: bigint): string => `${prefix}${value}`;
  const toWritable = rawJson === undefined ? toMarker : (value: bigint): unknown => rawJson(value.toString());

  const unmarkText = (text: string): string => (text.includes(textPrefix) ? text.replace(markerInText, '$1') : text);

  /** Parsed with markers, for a runtime without revivers' source text. */
  const parseMarked = (text: string, parser: JsonParser): unknown => {
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

  /** Parsed with a reviver that reads the numbers JSON.parse would not read exactly from their source text. */
  const parseFromSource = (text: string, parser: JsonParser): unknown =>
    numbersToRead(text) === undefined ? parser(text) : parser(text, readExactly);

  return {
    markText,
    markValidText,
    revive,
    mark: (value) => withBigints(value, toMarker),
    writable: (value) => withBigints(value, toWritable),
    writesMarkers: rawJson === undefined,
    unmarkText,
    hasMarkers: (text) => text.includes(textPrefix),
    holdsMarkerPrefix: (text) => text.includes(prefix),
    parse:
      rawJson === undefined
        ? (text, parser = JSON.parse) => parseMarked(text, parser)
        : (text, parser = JSON.parse) => parseFromSource(text, parser),
    stringify:
      rawJson === undefined
        ? (value) => unmarkText(JSON.stringify(withBigints(value, toMarker)))
        : (value) => JSON.stringify(withBigints(value, toWritable)),
    transformer: { serialize: (value) => withBigints(value, toWritable), deserialize: revive },
  };
}

/** The service's and the typed client's one instance. */
export const int64Json = createInt64Json();

/** A reviver (for a runtime with source text) that reads each number a double would not read exactly as `exactReading` says. */
function readExactly(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return exactReading(context.source) ?? value;
}

/**
 * What a reader must take a number token for where JSON.parse reads it otherwise: the bigint of
 * an integer beyond ±(2^53−1), or ±0.5 for a token that is not an integer but that a double
 * rounds to one; undefined where JSON.parse reads it right.
 */
function exactReading(token: string): bigint | number | undefined {
  const value = exactValue(token);
  if (typeof value === 'bigint') return value > MAX_SAFE || value < -MAX_SAFE ? value : undefined;
  if (value === NOT_AN_INTEGER && Number.isInteger(Number(token))) return token.startsWith('-') ? -0.5 : 0.5;
  return undefined;
}

/**
 * The value with each bigint replaced by `convert(bigint)`; the value itself when it holds none.
 * Recursive, but bounded: it descends only into arrays and objects that hold a bigint, and
 * refuses a value nested deeper than MAX_JSON_DEPTH (or cyclic). A client's value reaches it
 * only from text that the scan has bounded; the service's own answers are shallow.
 */
function withBigints(value: unknown, convert: (value: bigint) => unknown, depth = 0): unknown {
  if (typeof value === 'bigint') return convert(value);
  if (!isContainer(value) || !holdsBigint(value, depth + 1)) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => withBigints(item, convert, depth + 1));
  // Only plain data reaches JSON; defineProperty-style entries keep a "__proto__" key a key.
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withBigints(item, convert, depth + 1)]));
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

function holdsBigint(value: object, depth: number): boolean {
  if (depth > MAX_JSON_DEPTH)
    throw new RangeError(`a value nested more than ${MAX_JSON_DEPTH} levels deep (or cyclic) cannot be written as JSON`);
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
