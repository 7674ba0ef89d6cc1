/**
 * int64 values across JSON, exactly, on Node 20 (which has neither `JSON.rawJSON` nor source
 * text in `JSON.parse` revivers): JSON.parse rounds integers beyond ±(2^53−1), and
 * JSON.stringify throws on a bigint.
 *
 * So such integers travel through JSON.parse and JSON.stringify as marker strings: a NUL
 * character, a random key made at start-up and the digits. `markText` rewrites the big
 * integers of JSON text as markers before it is parsed, and `revive` turns the markers of the
 * parsed value into bigints; `mark` turns bigints into markers before a value is stringified,
 * and `unmarkText` writes the markers of the text back as plain JSON numbers. A client cannot
 * forge a marker, since it does not know the key. Text without big integers is parsed and
 * written as it is, so ordinary ids pay for a regular expression test, not a second parse.
 */
export interface Int64Json {
  /** JSON text with each integer beyond ±(2^53−1) written as a marker string; the text itself when it has none. */
  markText: (text: string) => string;
  /** A value parsed from marked text with each marker turned into its bigint (in place). */
  revive: (value: unknown) => unknown;
  /** A value with each bigint turned into a marker; the value itself when it holds none. */
  mark: (value: unknown) => unknown;
  /** JSON text with each marker written back as the JSON number it stands for (as a JSON string of its digits, with `asStrings`). */
  unmarkText: (text: string, options?: { asStrings?: boolean }) => string;
  /** Whether JSON text holds markers (cheap: a substring test). */
  hasMarkers: (text: string) => boolean;
  /** `JSON.parse`, exact for every integer. */
  parse: (text: string) => unknown;
  /** `JSON.stringify`, writing bigints as JSON numbers. */
  stringify: (value: unknown) => string;
  /** The same, as a tRPC data transformer: both ends of /trpc use it. */
  transformer: { serialize: (value: unknown) => unknown; deserialize: (value: unknown) => unknown };
}

// Character codes the scan below compares with.
const ZERO = 0x30;
const NINE = 0x39;
const PLUS = 0x2b;
const MINUS = 0x2d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const isDigit = (code: number) => code >= ZERO && code <= NINE;

/**
 * Only these can write an integer beyond 2^53 (9007199254740992, 16 digits): a run of 17 digits,
 * a run of 16 that starts with 9, or an exponent (a digit, `e`, maybe a sign, a digit). Anything
 * else needs no look, so 16-digit ids below 9×10^15 (clock-based ones, for instance) pay for this
 * scan alone. One pass over the text: the regular expression it replaces
 * (`/\d{17}|9\d{15}|\d[eE][+-]?\d/`) rescanned each run of digits from every position in it,
 * about 0.4 µs per request body with a 16-digit id (bench/README.md).
 */
export function mayHoldBigInteger(text: string): boolean {
  let run = 0;
  let first = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (isDigit(code)) {
      if (run === 0) first = code;
      run += 1;
      if (run >= 17 || (run === 16 && first === NINE)) return true;
      continue;
    }
    if (run > 0 && (code === LOWER_E || code === UPPER_E)) {
      const next = text.charCodeAt(index + 1);
      if (isDigit(next === PLUS || next === MINUS ? text.charCodeAt(index + 2) : next)) return true;
    }
    run = 0;
  }
  return false;
}

/** A JSON number, as RFC 8259 writes one. */
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Past 20 digits a value is beyond int64: it is left to JSON.parse, and the schema refuses it. */
const MAX_DIGITS = 20;

export function createInt64Json(key: string = randomKey()): Int64Json {
  const prefix = `\u0000${key}:`;
  const textPrefix = `\\u0000${key}:`;
  const markerInText = new RegExp(`"\\\\u0000${key}:(-?\\d+)"`, 'g');

  const markText = (text: string): string => (mayHoldBigInteger(text) ? rewriteBigIntegers(text, (digits) => `"${textPrefix}${digits}"`) : text);

  const revive = (value: unknown): unknown => {
    if (typeof value === 'string') return value.startsWith(prefix) ? BigInt(value.slice(prefix.length)) : value;
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string' || (typeof item === 'object' && item !== null)) record[key] = revive(item);
    }
    return value;
  };

  const mark = (value: unknown): unknown => {
    if (typeof value === 'bigint') return `${prefix}${value}`;
    if (typeof value !== 'object' || value === null || !holdsBigint(value)) return value;
    if (Array.isArray(value)) return value.map(mark);
    // Only plain data reaches JSON; defineProperty-style entries keep a "__proto__" key a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mark(item)]));
  };

  const unmarkText = (text: string, { asStrings = false } = {}): string =>
    text.includes(textPrefix) ? text.replace(markerInText, asStrings ? '"$1"' : '$1') : text;

  return {
    markText,
    revive,
    mark,
    unmarkText,
    hasMarkers: (text) => text.includes(textPrefix),
    parse: (text) => revive(JSON.parse(markText(text))),
    stringify: (value) => unmarkText(JSON.stringify(mark(value))),
    transformer: { serialize: mark, deserialize: revive },
  };
}

/** The service's and the typed client's one instance. */
export const int64Json = createInt64Json();

function holdsBigint(value: object): boolean {
  for (const item of Object.values(value) as unknown[]) {
    if (typeof item === 'bigint') return true;
    if (typeof item === 'object' && item !== null && holdsBigint(item)) return true;
  }
  return false;
}

/** Each JSON number outside strings that is an integer beyond ±(2^53−1) is replaced by `replace(digits)`. */
function rewriteBigIntegers(text: string, replace: (digits: string) => string): string {
  let out = '';
  let copiedUpTo = 0;
  let i = 0;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      i = endOfString(text, i);
      continue;
    }
    if (char === 0x2d /* - */ || (char >= 0x30 && char <= 0x39)) {
      JSON_NUMBER.lastIndex = i;
      const token = JSON_NUMBER.exec(text)?.[0];
      if (token === undefined) {
        i += 1;
        continue;
      }
      const value = exactInteger(token);
      if (value !== undefined && (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))) {
        out += text.slice(copiedUpTo, i) + replace(value.toString());
        copiedUpTo = i + token.length;
      }
      i += token.length;
      continue;
    }
    i += 1;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** Just past the string that opens at `start` (or the end of the text, for an unterminated one). */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x5c /* \ */) i += 2;
    else if (char === 0x22) return i + 1;
    else i += 1;
  }
  return i;
}

/** The exact integer a JSON number token writes (`12`, `1.2e3`, `-9e18`), or undefined when it is not one or is beyond int64. */
function exactInteger(token: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (Math.abs(exponent) > MAX_DIGITS * 2) return undefined;
  let digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const scale = exponent - fraction.length;
  if (scale < 0) {
    if (/[^0]/.test(digits.slice(scale))) return undefined;
    digits = digits.slice(0, scale) || '0';
  } else {
    digits += '0'.repeat(scale);
  }
  digits = digits.replace(/^0+(?=\d)/, '');
  return digits.length > MAX_DIGITS ? undefined : BigInt(sign + digits);
}

function randomKey(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
