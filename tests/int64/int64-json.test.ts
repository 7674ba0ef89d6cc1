import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInt64Json, int64Json, type JsonParser } from '../../schemas/int64-json.js';
import { MAX_JSON_DEPTH } from '../../schemas/json-text.js';
import { int64Spelling, nonIntegerSpelling } from '../helpers/number-spellings.js';

/** What an exact reader makes of an integer's digits: a number while it is safe, else a bigint. */
const exact = (digits: string): number | bigint => {
  const value = BigInt(digits);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
};

/**
 * schemas/int64-json.ts reads text that cannot hold an integer beyond 2^53 as it is; every
 * integer of int64 must still come out exact, whatever its digits, sign or spelling. Both ways of
 * reading: the runtime's (source text where it has it, else markers), and markers alone, as on Node 20.
 */
const WAYS = [
  ["the runtime's way", int64Json],
  ['markers alone', createInt64Json({ markersOnly: true })],
] as const;

describe.each(WAYS)('%s', (_way, json) => {
  describe('parse', () => {
    const edges = [
      '999999999999999', // 15 digits
      '1000000000000000', // 16 digits, far below 2^53
      '8999999999999999',
      '9000000000000000',
      '9007199254740991', // 2^53 − 1
      '9007199254740992', // 2^53
      '9007199254740993',
      '9999999999999999',
      '10000000000000000', // 17 digits
      '10000000000000001',
      '9223372036854775807',
    ];
    it.each(edges.flatMap((digits) => [digits, `-${digits}`]))('reads %s exactly, alone and inside an object', (digits) => {
      expect(json.parse(digits)).toBe(exact(digits));
      expect(json.parse(`{"id":${digits},"name":"Fern"}`)).toEqual({ id: exact(digits), name: 'Fern' });
    });

    it('reads an integer beyond 2^53 written with a fraction or an exponent exactly', () => {
      expect(json.parse('9007199254740993.0')).toBe(9007199254740993n);
      expect(json.parse('9.007199254740993e15')).toBe(9007199254740993n);
      expect(json.parse('1e17')).toBe(10n ** 17n);
    });

    it('leaves numbers in strings and non-integers as JSON.parse reads them', () => {
      expect(json.parse('{"note":"9007199254740993","ratio":0.9007199254740993}')).toEqual({
        note: '9007199254740993',
        ratio: 0.9007199254740993,
      });
    });
  });

  describe('parse: what a number token denotes, exactly', () => {
    it.each([
      ['1.0', 1],
      ['1e3', 1000],
      ['1.5e1', 15],
      ['-2.50e1', -25],
      ['90071992547409930e-1', 9007199254740993n],
      ['0.9223372036854775807e19', 9223372036854775807n],
      ['9223372036854775807.000', 9223372036854775807n],
      ['0e-999999', 0],
    ])('reads %s as the integer it writes', (token, value) => {
      expect(json.parse(`{"id":${token}}`)).toEqual({ id: value });
    });

    it.each([
      '4.9999999999999999',
      '-4.9999999999999999',
      '1e-400',
      '9007199254740991.4',
      '77.00000000000000001',
      '9223372036854775807.5',
      '12345678901234567890123.5',
      '1.00000000000000000000001e5',
    ])('reads %s, which JSON.parse rounds to an integer, as a number that is not an integer', (token) => {
      expect(Number.isInteger(JSON.parse(token))).toBe(true);
      const { id } = json.parse(`{"id":${token}}`) as { id: unknown };
      expect(typeof id).toBe('number');
      expect(Number.isInteger(id)).toBe(false);
      expect(Math.sign(id as number)).toBe(token.startsWith('-') ? -1 : 1);
    });

    it('reads every int64 in every spelling exactly', () => {
      fc.assert(
        fc.property(int64Spelling, ({ value, text }) => {
          expect(BigInt(json.parse(text) as number | bigint)).toBe(value);
        }),
        { seed: 24, numRuns: 3_000 },
      );
    });

    it('reads no number that is not an integer as an integer, whatever a double makes of it', () => {
      fc.assert(
        fc.property(nonIntegerSpelling, (text) => {
          const value = json.parse(text);
          expect(typeof value).toBe('number');
          expect(Number.isInteger(value)).toBe(false);
        }),
        { seed: 24, numRuns: 3_000 },
      );
    });

    it('leaves an integer beyond 20 digits to JSON.parse, building no more digits than that however large its exponent', () => {
      expect(json.parse('123456789012345678901234567890')).toBe(1.2345678901234568e29);
      expect(json.parse('1e400')).toBe(Infinity);
      expect(json.parse(`1e${'9'.repeat(5_000)}`)).toBe(Infinity);
      expect(Number.isInteger(json.parse(`1e-${'9'.repeat(5_000)}`))).toBe(false);
    });
  });
});

describe('int64 markers cannot be forged', () => {
  // An instance with a known key: a client that learned the service's key is in this position.
  const known = createInt64Json({ key: 'feedc0de' });
  const reserved = 'the JSON text holds a string the service reserves: a NUL character followed by its internal int64 marker';

  it.each([
    ['a name equal to a marker', '{"id":1,"name":"\\u0000feedc0de:5"}'],
    ['a marker with digits that are not a number', '{"id":1,"name":"\\u0000feedc0de:abc"}'],
    ['a marker spelled with other escapes', '{"id":1,"name":"\\u0000\\u0066eedc0de\\u003a5"}'],
    ['a marker inside a longer string', '{"id":1,"tag":"plant \\u0000feedc0de:5"}'],
    ['a marker as a key', '{"\\u0000feedc0de:5":1}'],
    ['a marker next to a big integer', '{"id":9223372036854775807,"name":"\\u0000feedc0de:5"}'],
  ])('refuses %s before parsing', (_kind, text) => {
    expect(() => known.markText(text)).toThrow(reserved);
    expect(() => known.parse(text)).toThrow(reserved);
  });

  it('takes NUL characters that are not a marker, and strings that merely look like one', () => {
    for (const name of ['\u0000', '\u0000feedc0de', '\u0000feedc0dX:5', 'feedc0de:5', '\\u0000feedc0de:5']) {
      expect(known.parse(JSON.stringify({ id: 1, name }))).toEqual({ id: 1, name });
      // And they are written back as they came, never as numbers.
      expect(known.stringify({ id: 9223372036854775807n, name })).toBe(JSON.stringify({ id: 1, name }).replace('1', '9223372036854775807'));
    }
  });

  it('never throws from revive: a string with the prefix and no digits stays a string', () => {
    expect(known.revive('\u0000feedc0de:abc')).toBe('\u0000feedc0de:abc');
    expect(known.revive({ name: '\u0000feedc0de:' })).toEqual({ name: '\u0000feedc0de:' });
    expect(known.revive({ id: '\u0000feedc0de:-9223372036854775808' })).toEqual({ id: -9223372036854775808n });
  });
});

describe('walks over parsed values', () => {
  it('revive walks a value nested far deeper than any stack, without recursion', () => {
    let value: unknown = [int64Json.mark(9223372036854775807n)];
    for (let depth = 0; depth < 200_000; depth += 1) value = [value];
    expect(() => int64Json.revive(value)).not.toThrow();
    let innermost: unknown = value;
    while (Array.isArray(innermost)) innermost = innermost[0];
    expect(innermost).toBe(9223372036854775807n);
  });

  it(`mark refuses a value nested deeper than ${MAX_JSON_DEPTH} levels, or a cycle, in its own words`, () => {
    let deep: unknown = [1n];
    for (let depth = 0; depth < 10_000; depth += 1) deep = [deep];
    const cyclic: Record<string, unknown> = { id: 1 };
    cyclic.self = cyclic;
    for (const value of [deep, cyclic])
      expect(() => int64Json.mark(value)).toThrow(
        `a value nested more than ${MAX_JSON_DEPTH} levels deep (or cyclic) cannot be written as JSON`,
      );
    let ok: unknown = [1n];
    for (let depth = 1; depth < MAX_JSON_DEPTH; depth += 1) ok = [ok];
    expect(int64Json.stringify(ok)).toBe(`${'['.repeat(MAX_JSON_DEPTH)}1${']'.repeat(MAX_JSON_DEPTH)}`);
  });
});

/** Whether this runtime has JSON.rawJSON (and with it revivers' source text): Node 22+, not Node 20. */
const runtimeHasRawJson = typeof (JSON as { rawJSON?: unknown }).rawJSON === 'function';

describe("the runtime's JSON where it has JSON.rawJSON and source text, markers where it does not", () => {
  const value = { id: 9223372036854775807n, page: [{ id: -9007199254740993n }, { id: 7 }] };
  const text = '{"id":9223372036854775807,"page":[{"id":-9007199254740993},{"id":7}]}';

  it('writes markers exactly where the runtime has no JSON.rawJSON', () => {
    expect(int64Json.writesMarkers).toBe(!runtimeHasRawJson);
    expect(createInt64Json({ markersOnly: true }).writesMarkers).toBe(true);
  });

  it.each(WAYS)(
    '%s: any JSON.stringify writes writable values exactly, once unmarkText has run where markers are written',
    (_way, json) => {
      for (const writable of [json.writable(value), json.transformer.serialize(value)]) {
        const written = JSON.stringify(writable);
        expect(json.writesMarkers ? json.unmarkText(written) : written).toBe(text);
      }
      expect(json.stringify(value)).toBe(text);
      expect(json.writable({ id: 7 })).toStrictEqual({ id: 7 });
    },
  );

  it.each(WAYS)('%s: writes bigints within 2^53 as numbers, and a "__proto__" key as a plain key', (_way, json) => {
    const safe = { page: [{ id: 9007199254740991n }, { id: -9007199254740991n }, { id: 9007199254740992n }], ['__proto__']: { id: 1n } };
    const written = JSON.stringify(json.writable(safe));
    expect(json.writesMarkers ? json.unmarkText(written) : written).toBe(
      '{"page":[{"id":9007199254740991},{"id":-9007199254740991},{"id":9007199254740992}],"__proto__":{"id":1}}',
    );
    expect(json.stringify(safe)).toBe(json.writesMarkers ? json.unmarkText(written) : written);
    expect(json.hasMarkers(written)).toBe(json.writesMarkers);
    expect(json.hasMarkers(JSON.stringify(json.transformer.serialize({ id: 9007199254740991n })))).toBe(false);
  });

  it("parse hands the parser the client's own text where the runtime has source text, else the text with markers", () => {
    const seen: string[] = [];
    const parser: JsonParser = (text, reviver) => {
      seen.push(text);
      return JSON.parse(text, reviver) as unknown;
    };
    expect(int64Json.parse(text, parser)).toStrictEqual(value);
    expect(seen.length).toBe(1);
    expect(seen[0] === text).toBe(runtimeHasRawJson);
  });
});

describe('error messages quote the client text, never a marker', () => {
  it('markValidText: rewritten text that does not parse fails with the parse error of the client text', () => {
    const text = '{"id":9223372036854775807,"name":}';
    let clientError: unknown;
    try {
      JSON.parse(text);
    } catch (error) {
      clientError = error;
    }
    expect(() => int64Json.markValidText(text)).toThrow((clientError as Error).message);
    expect(() => int64Json.parse(text)).toThrow((clientError as Error).message);
    // Text that needs no rewriting is handed on unparsed: its parser's error is about the same text.
    expect(int64Json.markValidText('{"id":1,')).toBe('{"id":1,');
  });
});
