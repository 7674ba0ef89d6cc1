import { describe, expect, it } from 'vitest';
import { int64Json } from '../../schemas/int64-json.js';

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
