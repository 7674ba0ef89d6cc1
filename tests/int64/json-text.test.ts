// schemas/json-text.ts: the one pass over a client's JSON text that bounds its nesting and finds
// the number tokens and NUL-writing strings that need a closer look.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextError, MAX_JSON_DEPTH, scanJsonText } from '../../schemas/json-text.js';

const nested = (depth: number, open = '[', close = ']', inner = '') => open.repeat(depth) + inner + close.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const tooDeep = `the JSON text is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`;

describe('scanJsonText: nesting', () => {
  it.each([
    ['arrays', nested(MAX_JSON_DEPTH), nested(MAX_JSON_DEPTH + 1)],
    ['objects', objects(MAX_JSON_DEPTH), objects(MAX_JSON_DEPTH + 1)],
    ['arrays and objects mixed', `{"tag":${nested(MAX_JSON_DEPTH - 1)}}`, `{"tag":${nested(MAX_JSON_DEPTH)}}`],
    ['a tRPC batch of plants', `{"0":{"id":1,"tag":${nested(MAX_JSON_DEPTH - 2)}}}`, `{"0":{"id":1,"tag":${nested(MAX_JSON_DEPTH - 1)}}}`],
  ])('%s: %i levels pass, one more is refused', (_kind, deepest, deeper) => {
    expect(() => scanJsonText(deepest)).not.toThrow();
    expect(() => scanJsonText(deeper)).toThrow(JsonTextError);
    expect(() => scanJsonText(deeper)).toThrow(tooDeep);
  });

  it('refuses 8,000 levels (the body that ended the process) and a megabyte of them, without recursion', () => {
    for (const depth of [8_000, 1_000_000])
      expect(() => scanJsonText(`{"id":9223372036854775807,"tag":${nested(depth)}}`)).toThrow(tooDeep);
  });

  it('counts no bracket inside a string, escaped quotes and backslashes included', () => {
    const brackets = '['.repeat(200);
    expect(scanJsonText(`{"name":"${brackets}","tag":"\\"${brackets}\\\\"}`)).toBeUndefined();
    // After `\\` the string ends at the next quote: the brackets that follow are structure.
    expect(() => scanJsonText(`["\\\\",${nested(MAX_JSON_DEPTH)}]`)).toThrow(tooDeep);
  });

  it('gives no room for more nesting after closing brackets that opened nothing', () => {
    expect(() => scanJsonText(']'.repeat(100) + nested(MAX_JSON_DEPTH + 1))).toThrow(tooDeep);
  });

  it('words the refusal for the text it names', () => {
    const error = (() => {
      try {
        scanJsonText(nested(MAX_JSON_DEPTH + 1));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(JsonTextError);
    expect((error as JsonTextError).messageFor('the request body')).toBe(
      `the request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
    );
  });
});

/** A number token JSON.parse reads exactly as an integer: at most 15 digits, or 16 below 9×10^15. */
const isPlainSafeInteger = (token: string) =>
  /^-?\d+$/.test(token) &&
  (token.replace('-', '').length < 16 || (token.replace('-', '').length === 16 && !token.replace('-', '').startsWith('9')));

/** Number tokens in every spelling: plain integers of any length, fractions, exponents, signs. */
const numberToken = fc.oneof(
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
  fc.integer().map(String),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.stringMatching(/^\d{1,25}$/)).map(([whole, fraction]) => `${whole}.${fraction}`),
  fc
    .tuple(
      fc.stringMatching(/^-?[1-9]\d{0,20}(\.\d{1,20})?$/),
      fc.constantFrom('e', 'E', 'e+', 'e-', 'E-'),
      fc.integer({ min: 0, max: 500 }),
    )
    .map(([mantissa, e, exponent]) => `${mantissa}${e}${exponent}`),
  fc.constantFrom('9007199254740993', '8999999999999999', '9000000000000000', '1000000000000000', '-0', '0', '1.0', '1e3'),
);

/** A string that JSON writes with its escapes, holding digits, quotes, backslashes, brackets and NULs. */
const stringToken = fc
  .string({ unit: fc.constantFrom('9', '1', 'e', '.', '-', '"', '\\', '[', '{', '\u0000', 'a', ' '), maxLength: 30 })
  .map((text) => JSON.stringify(text));

/** A JSON text and, in order, the number tokens in it (outside strings). */
const jsonWithNumbers: fc.Arbitrary<{ text: string; numbers: string[]; nulStrings: number }> = fc
  .array(
    fc.oneof(
      numberToken.map((token) => ({ token, isNumber: true })),
      stringToken.map((token) => ({ token, isNumber: false })),
    ),
    { maxLength: 12 },
  )
  .map((items) => ({
    text: `{"items":[${items.map(({ token }) => token).join(',')}],"more":{"x":[]}}`,
    numbers: items.filter(({ isNumber }) => isNumber).map(({ token }) => token),
    nulStrings: items.filter(({ token, isNumber }) => !isNumber && token.includes('\\u0000')).length,
  }));

describe('scanJsonText: what needs a closer look', () => {
  it('reports exactly the number tokens outside strings that are not plain safe integers, and each string writing a NUL', () => {
    fc.assert(
      fc.property(jsonWithNumbers, ({ text, numbers, nulStrings }) => {
        const findings = scanJsonText(text);
        const reported = findings?.numbers.map(({ start, end }) => text.slice(start, end)) ?? [];
        expect(reported).toEqual(numbers.filter((token) => !isPlainSafeInteger(token)));
        expect(findings?.nulStrings.length ?? 0).toBe(nulStrings);
        for (const start of findings?.nulStrings ?? []) expect(text[start]).toBe('"');
      }),
      { seed: 24, numRuns: 2_000 },
    );
  });

  it.each([
    ['an ordinary plant', '{"id":1700000000000000,"name":"Monstera","tag":"tropical"}'],
    ['the largest 16-digit ids below 9×10^15', '{"id":8999999999999999,"name":"a"}'],
    ['digits, exponents and NUL in names only', '{"id":1,"name":"9007199254740993 1e-400 4.9999999999999999 \\\\u0000"}'],
  ])('finds nothing in %s: the common body pays for this one pass alone', (_kind, text) => {
    expect(scanJsonText(text)).toBeUndefined();
  });

  it.each([
    ['{"id":9000000000000000}', '9000000000000000'],
    ['{"id":10000000000000000}', '10000000000000000'],
    ['{"id":-9223372036854775808}', '-9223372036854775808'],
    ['{"id":1e3}', '1e3'],
    ['{"id":1E+3}', '1E+3'],
    ['{"id":1.0}', '1.0'],
    ['{"id":4.9999999999999999}', '4.9999999999999999'],
    ['{"id":1e-400}', '1e-400'],
  ])('%s: reports %s', (text, token) => {
    const findings = scanJsonText(text);
    expect(findings?.numbers.map(({ start, end }) => text.slice(start, end))).toEqual([token]);
  });

  it('reports a string that writes NUL with the escape, wherever it is, and not an escaped backslash before u0000', () => {
    expect(scanJsonText('{"name":"a\\u0000b"}')?.nulStrings).toEqual([8]);
    expect(scanJsonText('{"\\u0000":1,"x":"\\u0000\\u0000"}')?.nulStrings).toEqual([1, 16]);
    expect(scanJsonText('{"name":"\\\\u0000"}')).toBeUndefined();
  });
});
