// Exact numeric semantics across Int32, Int64, Double and Decimal128. MongoDB compares numbers by
// value whatever their BSON type, and Int64 values beyond 2^53 must not be squeezed through doubles,
// so comparisons fall back to exact rationals (bigint numerator / denominator) whenever needed.
import { Decimal128, Double, Int32, Long } from 'bson';
import { isDecimal, isDouble, isInt32, isLong, type NumericValue } from '../values.js';

type Rational = { kind: 'finite'; n: bigint; d: bigint } | { kind: 'nan' | 'inf' | '-inf' };

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The value as a JS double when that conversion is exact (or the value is a double already). */
function exactDouble(value: NumericValue): number | undefined {
  if (typeof value === 'number') return value;
  if (isInt32(value) || isDouble(value)) return value.value;
  if (isLong(value)) {
    const big = value.toBigInt();
    return big >= -(2n ** 53n) && big <= 2n ** 53n ? Number(big) : undefined;
  }
  return undefined;
}

function doubleToRational(x: number): Rational {
  if (Number.isNaN(x)) return { kind: 'nan' };
  if (x === Infinity) return { kind: 'inf' };
  if (x === -Infinity) return { kind: '-inf' };
  let m = x;
  let d = 1n;
  // Doubling a non-integral double is exact, and it becomes integral after at most 1074 steps.
  while (!Number.isInteger(m)) {
    m *= 2;
    d *= 2n;
  }
  return { kind: 'finite', n: BigInt(m), d };
}

function decimalToRational(value: Decimal128): Rational {
  const text = value.toString();
  if (text === 'NaN' || text === '-NaN') return { kind: 'nan' };
  if (text === 'Infinity') return { kind: 'inf' };
  if (text === '-Infinity') return { kind: '-inf' };
  const match = /^(-)?(\d+)(?:\.(\d+))?(?:E([+-]\d+))?$/i.exec(text);
  if (!match) return { kind: 'nan' };
  const [, sign, whole = '0', fraction = '', exponentText = '0'] = match;
  let n = BigInt(whole + fraction);
  if (sign) n = -n;
  const exponent = Number(exponentText) - fraction.length;
  return exponent >= 0 ? { kind: 'finite', n: n * 10n ** BigInt(exponent), d: 1n } : { kind: 'finite', n, d: 10n ** BigInt(-exponent) };
}

export function toRational(value: NumericValue): Rational {
  if (isLong(value)) return { kind: 'finite', n: value.toBigInt(), d: 1n };
  if (isDecimal(value)) return decimalToRational(value);
  return doubleToRational(exactDouble(value) ?? Number.NaN);
}

const SPECIAL_RANK = { nan: 0, '-inf': 1, finite: 2, inf: 3 } as const;

function compareRationals(a: Rational, b: Rational): number {
  if (a.kind !== 'finite' || b.kind !== 'finite') return Math.sign(SPECIAL_RANK[a.kind] - SPECIAL_RANK[b.kind]);
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Numeric comparison as MongoDB does it: NaN sorts below every other number and equals itself. */
export function compareNumbers(a: NumericValue, b: NumericValue): number {
  const x = exactDouble(a);
  const y = exactDouble(b);
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return compareRationals(toRational(a), toRational(b));
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** A string equal for numerically equal values of any BSON numeric type (used for hashing). */
export function numericKey(value: NumericValue): string {
  const x = exactDouble(value);
  if (x !== undefined && Number.isInteger(x)) return `n${x === 0 ? 0 : x}`;
  const r = toRational(value);
  if (r.kind !== 'finite') return `n${r.kind}`;
  const g = gcd(r.n, r.d);
  const [n, d] = g === 0n ? [0n, 1n] : [r.n / g, r.d / g];
  return d === 1n ? `n${n}` : `n${n}/${d}`;
}

/** The JS number closest to the value, for places where MongoDB itself works in doubles. */
export function toDouble(value: NumericValue): number {
  if (typeof value === 'number') return value;
  if (isInt32(value) || isDouble(value)) return value.value;
  if (isLong(value)) return value.toNumber();
  return Number(value.toString());
}

/** Integral value as bigint, or undefined when it is not an integer. */
export function toBigIntIfIntegral(value: NumericValue): bigint | undefined {
  if (isLong(value)) return value.toBigInt();
  const x = exactDouble(value);
  if (x !== undefined) return Number.isInteger(x) ? BigInt(x) : undefined;
  const r = toRational(value);
  return r.kind === 'finite' && r.n % r.d === 0n ? r.n / r.d : undefined;
}

// Result type widening used by $inc, $mul, $sum...: int32 < int64 < double < decimal.
function widthOf(value: NumericValue): number {
  if (isDecimal(value)) return 3;
  if (isDouble(value) || typeof value === 'number') return 2;
  if (isLong(value)) return 1;
  return 0;
}

function decimalParts(value: NumericValue): { c: bigint; e: number } {
  const source = isDecimal(value) ? value : Decimal128.fromStringWithRounding(String(toDouble(value)));
  const text = source.toString();
  const match = /^(-)?(\d+)(?:\.(\d+))?(?:E([+-]\d+))?$/i.exec(text);
  if (!match) return { c: 0n, e: 0 };
  const [, sign, whole = '0', fraction = '', exponentText = '0'] = match;
  const c = BigInt(whole + fraction);
  return { c: sign ? -c : c, e: Number(exponentText) - fraction.length };
}

function decimalFromParts(c: bigint, e: number): Decimal128 {
  return Decimal128.fromStringWithRounding(`${c}E${e}`);
}

function integerResult(result: bigint, width: number): NumericValue {
  if (width === 0 && result >= INT32_MIN && result <= INT32_MAX) return new Int32(Number(result));
  if (result >= INT64_MIN && result <= INT64_MAX) return Long.fromBigInt(result);
  return new Double(Number(result));
}

export function addNumbers(a: NumericValue, b: NumericValue): NumericValue {
  const width = Math.max(widthOf(a), widthOf(b));
  if (width === 3) {
    const x = decimalParts(a);
    const y = decimalParts(b);
    const e = Math.min(x.e, y.e);
    return decimalFromParts(x.c * 10n ** BigInt(x.e - e) + y.c * 10n ** BigInt(y.e - e), e);
  }
  if (width === 2) return new Double(toDouble(a) + toDouble(b));
  return integerResult((toBigIntIfIntegral(a) ?? 0n) + (toBigIntIfIntegral(b) ?? 0n), width);
}

export function multiplyNumbers(a: NumericValue, b: NumericValue): NumericValue {
  const width = Math.max(widthOf(a), widthOf(b));
  if (width === 3) {
    const x = decimalParts(a);
    const y = decimalParts(b);
    return decimalFromParts(x.c * y.c, x.e + y.e);
  }
  if (width === 2) return new Double(toDouble(a) * toDouble(b));
  return integerResult((toBigIntIfIntegral(a) ?? 0n) * (toBigIntIfIntegral(b) ?? 0n), width);
}

export function negateNumber(value: NumericValue): NumericValue {
  return multiplyNumbers(value, new Int32(-1));
}
