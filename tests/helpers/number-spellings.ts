// fast-check spellings of JSON numbers, each with what it denotes exactly: the ways a client can
// write an int64, an integer beyond int64, or a number that is not an integer at all.
import fc from 'fast-check';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

export type Denotes = { kind: 'int64'; value: bigint } | { kind: 'beyond int64' } | { kind: 'not an integer' };
export interface Spelling {
  text: string;
  denotes: Denotes;
}

/** The integer `value` in one of five spellings: digits, a zero fraction, scaled down, scientific, scientific with `E+`. */
function spellInteger(value: bigint, spelling: number, zeros: number): string {
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString();
  const mantissa = `${digits[0] ?? '0'}.${digits.slice(1) || '0'}`;
  const texts = [
    digits,
    `${digits}.${'0'.repeat(zeros + 1)}`,
    `${digits === '0' ? '0' : digits + '0'.repeat(zeros)}e-${zeros}`,
    `${mantissa}e${digits.length - 1}`,
    `${mantissa}E+${digits.length - 1}`,
  ];
  return `${sign}${texts[spelling % texts.length] ?? digits}`;
}

/** Integers near the edges that matter: 0, ±2^53, ±(2^63 − 1), and anywhere in between. */
const int64Value = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -(2n ** 53n) - 3n, max: 2n ** 53n + 3n }).filter((value) => value < -(2n ** 53n) + 3n || value > 2n ** 53n - 3n),
  fc.constantFrom(0n, 1n, -1n, INT64_MIN, INT64_MAX, INT64_MAX - 1n, INT64_MIN + 1n),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(BigInt),
);

export const int64Spelling: fc.Arbitrary<{ value: bigint; text: string }> = fc
  .tuple(int64Value, fc.nat(4), fc.nat(6))
  .map(([value, spelling, zeros]) => ({ value, text: spellInteger(value, spelling, zeros) }));

const beyondInt64Spelling: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.oneof(
        fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 80n }),
        fc.bigInt({ min: -(2n ** 80n), max: INT64_MIN - 1n }),
        fc.constantFrom(INT64_MAX + 1n, INT64_MIN - 1n),
      ),
      fc.nat(4),
      fc.nat(6),
    )
    .map(([value, spelling, zeros]) => spellInteger(value, spelling, zeros)),
  fc.constantFrom('1e19', '-1e19', '1e300', '1e400', '-1e400', '1.5e400', '123456789012345678901234567890', `1e${'9'.repeat(30)}`),
);

/** A number with a fraction that is not zero, however far down, whole part of any size, in any spelling. */
export const nonIntegerSpelling: fc.Arbitrary<string> = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 70n }), fc.constantFrom(0n, 4n, 77n, 2n ** 53n - 1n, INT64_MAX)),
    fc.nat(40),
    fc.integer({ min: 1, max: 9 }),
    fc.nat(3),
  )
  .map(([negative, whole, zeros, last, spelling]) => {
    const fraction = `${'0'.repeat(zeros)}${last}`;
    // The same digits as an integer (no leading zero), to scale down by an exponent.
    const digits = BigInt(`${whole}${fraction}`).toString();
    const texts = [
      `${whole}.${fraction}`,
      `${digits}e-${fraction.length}`,
      `${digits}E-${fraction.length}`,
      `0.${whole}${fraction}e${whole.toString().length}`,
    ];
    return `${negative ? '-' : ''}${texts[spelling] ?? digits}`;
  });

/** Any of the three, weighted towards what is accepted. */
export const numberSpelling: fc.Arbitrary<Spelling> = fc.oneof(
  { weight: 3, arbitrary: int64Spelling.map(({ value, text }): Spelling => ({ text, denotes: { kind: 'int64', value } })) },
  { weight: 1, arbitrary: beyondInt64Spelling.map((text): Spelling => ({ text, denotes: { kind: 'beyond int64' } })) },
  { weight: 2, arbitrary: nonIntegerSpelling.map((text): Spelling => ({ text, denotes: { kind: 'not an integer' } })) },
);
