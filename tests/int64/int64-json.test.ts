import { describe, expect, it } from 'vitest';
import { int64Json, mayHoldBigInteger } from '../../schemas/int64-json.js';

/** What an exact reader makes of an integer's digits: a number while it is safe, else a bigint. */
const exact = (digits: string): number | bigint => {
  const value = BigInt(digits);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
};

/**
 * schemas/int64-json.ts skips its rewrite for text that cannot hold an integer beyond 2^53; every
 * integer of int64 must still come out exact, whatever its digits, sign or spelling.
 */
describe('int64Json.parse', () => {
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
    expect(int64Json.parse(digits)).toBe(exact(digits));
    expect(int64Json.parse(`{"id":${digits},"name":"Fern"}`)).toEqual({ id: exact(digits), name: 'Fern' });
  });

  it('reads an integer beyond 2^53 written with a fraction or an exponent exactly', () => {
    expect(int64Json.parse('9007199254740993.0')).toBe(9007199254740993n);
    expect(int64Json.parse('9.007199254740993e15')).toBe(9007199254740993n);
    expect(int64Json.parse('1e17')).toBe(10n ** 17n);
  });

  it('leaves numbers in strings and non-integers as JSON.parse reads them', () => {
    expect(int64Json.parse('{"note":"9007199254740993","ratio":0.9007199254740993}')).toEqual({ note: '9007199254740993', ratio: 0.9007199254740993 });
  });
});

describe('mayHoldBigInteger, the scan that decides whether a text needs the exact rewrite', () => {
  /** The rule it implements, as a regular expression: a run of 17 digits, 16 starting with 9, or an exponent. */
  const rule = /\d{17}|9\d{15}|\d[eE][+-]?\d/;

  it('agrees with the rule on texts made of digits, exponents, signs and the rest of JSON', () => {
    // A fixed-seed generator, so a failure names a text that can be replayed.
    let seed = 15;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const pieces = ['9', '1', '0', '5', 'e', 'E', '+', '-', '.', '"', ',', ':', '{', 'a', ' ', '9007199254740993', '123456789012345', '8999999999999999'];
    for (let text = 0; text < 5_000; text += 1) {
      const sample = Array.from({ length: 1 + random(40) }, () => pieces[random(pieces.length)]).join('');
      expect(mayHoldBigInteger(sample), sample).toBe(rule.test(sample));
    }
  });

  it.each([
    ['{"id":1000000000000000}', false],
    ['{"id":8999999999999999}', false],
    ['{"id":9000000000000000}', true],
    ['{"id":10000000000000000}', true],
    ['{"id":1e3}', true],
    ['{"id":1E+3}', true],
    ['{"id":1e-3}', true],
    ['{"name":"tree 1e"}', false],
    ['{"name":"e1"}', false],
  ])('%s: %s', (text, expected) => {
    expect(mayHoldBigInteger(text)).toBe(expected);
    expect(rule.test(text)).toBe(expected);
  });
});
