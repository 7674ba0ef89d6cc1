/**
 * One pass over client JSON before any parser: it refuses deep nesting (no later walk may exhaust the stack) and duplicate
 * keys (parsers disagree on which counts), and reports what JSON.parse may not read exactly. A scanner, not a validator.
 */

export const MAX_JSON_DEPTH = 64;

export interface TextSpan {
  start: number;
  end: number;
}

export interface JsonTextFindings {
  numbers: TextSpan[];
  nulStrings: number[];
}

export class JsonTextError extends Error {
  override readonly name = 'JsonTextError';

  constructor(private readonly problem: string) {
    super(`the JSON text ${problem}`);
  }

  messageFor(subject: string): string {
    return `${subject} ${this.problem}`;
  }
}

const TOO_DEEP = `is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`;
const SHOWN_KEY_LENGTH = 60;
const duplicateKey = (key: string) => {
  const shown = key.length > SHOWN_KEY_LENGTH ? `${key.slice(0, SHOWN_KEY_LENGTH)}…` : key;
  return `has the key ${JSON.stringify(shown)} twice in one object: each key may appear once`;
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const isDigit = (code: number) => code >= ZERO && code <= NINE;

/** Undefined when nothing needs a closer look (the common case). */
export function scanJsonText(text: string): JsonTextFindings | undefined {
  let findings: JsonTextFindings | undefined;
  let depth = 0;
  // Objects are small, so a list of keys per open object (undefined for an array).
  const keys: (string[] | undefined)[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      i += 1;
      for (let char = text.charCodeAt(i); i < text.length && char !== QUOTE; char = text.charCodeAt(i)) {
        if (char !== BACKSLASH) {
          i += 1;
          continue;
        }
        escaped = true;
        if (text.startsWith('u0000', i + 1) && findings?.nulStrings.at(-1) !== start) (findings ??= noFindings()).nulStrings.push(start);
        i += 2;
      }
      i += 1;
      const objectKeys = keys[depth - 1];
      if (objectKeys !== undefined && text.charCodeAt(afterWhitespace(text, i)) === COLON) {
        const key = keyOf(text.slice(start, i), escaped);
        if (objectKeys.includes(key)) throw new JsonTextError(duplicateKey(key));
        objectKeys.push(key);
      }
    } else if (code === MINUS || isDigit(code)) {
      const start = i;
      const digitsStart = code === MINUS ? i + 1 : i;
      i = endOfDigits(text, digitsStart);
      const digits = i - digitsStart;
      const integerEnd = i;
      i = endOfFractionAndExponent(text, i);
      // Exact as JSON.parse reads it: an integer of at most 15 digits, or of 16 below 9×10^15.
      const safeInteger = i === integerEnd && (digits < 16 || (digits === 16 && text.charCodeAt(digitsStart) !== NINE));
      if (!safeInteger) (findings ??= noFindings()).numbers.push({ start, end: i });
    } else {
      if (code === OPEN_BRACKET || code === OPEN_BRACE) {
        depth += 1;
        if (depth > MAX_JSON_DEPTH) throw new JsonTextError(TOO_DEEP);
        keys[depth - 1] = code === OPEN_BRACE ? [] : undefined;
      } else if ((code === CLOSE_BRACKET || code === CLOSE_BRACE) && depth > 0) {
        depth -= 1;
      }
      i += 1;
    }
  }
  return findings;
}

const noFindings = (): JsonTextFindings => ({ numbers: [], nulStrings: [] });

/** The string a key's token (quotes included) denotes; text that is no valid string is compared as written. */
function keyOf(token: string, escaped: boolean): string {
  if (!escaped) return token.slice(1, -1);
  try {
    return JSON.parse(token) as string;
  } catch {
    return token;
  }
}

function afterWhitespace(text: string, start: number): number {
  let i = start;
  for (let code = text.charCodeAt(i); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = text.charCodeAt(i)) i += 1;
  return i;
}

function endOfDigits(text: string, start: number): number {
  let i = start;
  while (isDigit(text.charCodeAt(i))) i += 1;
  return i;
}

function endOfFractionAndExponent(text: string, start: number): number {
  let i = start;
  if (text.charCodeAt(i) === DOT) i = endOfDigits(text, i + 1);
  const code = text.charCodeAt(i);
  if (code === LOWER_E || code === UPPER_E) {
    const sign = text.charCodeAt(i + 1);
    i = endOfDigits(text, sign === PLUS || sign === MINUS ? i + 2 : i + 1);
  }
  return i;
}

/** The end of the text for an unterminated string. */
export function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i += 2;
    else if (code === QUOTE) return i + 1;
    else i += 1;
  }
  return text.length;
}
