// Total order over BSON values as MongoDB defines it (type brackets first, then values), plus a
// canonical string key with the same notion of equality, so equal values hash alike (Int32 5, Int64 5
// and Double 5.0 share a key) for _id lookups and unique indexes.
import { compareNumbers, numericKey } from './numbers.js';
import { bsonTag, isDoc, isNumeric, isObjectId, isTimestamp, type Doc } from '../values.js';

// Canonical type order: MinKey < null < numbers < string < object < array < binData < ObjectId
// < bool < date < timestamp < regex < MaxKey.
const TAG_RANK: Record<string, number> = {
  MinKey: 1,
  Int32: 3,
  Long: 3,
  Double: 3,
  Decimal128: 3,
  BSONSymbol: 4,
  Binary: 7,
  ObjectId: 8,
  Timestamp: 11,
  BSONRegExp: 12,
  Code: 13,
  DBRef: 5,
  MaxKey: 127,
};

export function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 2;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
    default:
      break;
  }
  if (Array.isArray(value)) return 6;
  if (value instanceof Date) return 10;
  if (value instanceof RegExp) return 12;
  const tag = bsonTag(value);
  if (tag !== undefined) return TAG_RANK[tag] ?? 5;
  return 5;
}

function compareStrings(a: string, b: string): number {
  // MongoDB compares strings by their UTF-8 bytes, which is code point order, not UTF-16 order.
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function compareDocs(a: Doc, b: Doc): number {
  const left = Object.entries(a);
  const right = Object.entries(b);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const [ka, va] = left[i] ?? ['', undefined];
    const [kb, vb] = right[i] ?? ['', undefined];
    const byType = typeRank(va) - typeRank(vb);
    if (byType !== 0) return Math.sign(byType);
    const byName = compareStrings(ka, kb);
    if (byName !== 0) return byName;
    const byValue = compareValues(va, vb);
    if (byValue !== 0) return byValue;
  }
  return Math.sign(left.length - right.length);
}

function compareArrays(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const result = compareValues(a[i], b[i]);
    if (result !== 0) return result;
  }
  return Math.sign(a.length - b.length);
}

function bytesOf(value: unknown): Buffer {
  const binary = value as { buffer: Uint8Array; sub_type: number };
  return Buffer.from(binary.buffer);
}

function regexParts(value: unknown): [string, string] {
  if (value instanceof RegExp) return [value.source, value.flags];
  const regex = value as { pattern: string; options: string };
  return [regex.pattern, regex.options];
}

/** Compares two BSON values in MongoDB's sort order; returns -1, 0 or 1. */
export function compareValues(a: unknown, b: unknown): number {
  const byType = typeRank(a) - typeRank(b);
  if (byType !== 0) return Math.sign(byType);
  if (isNumeric(a) && isNumeric(b)) return compareNumbers(a, b);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (Array.isArray(a) && Array.isArray(b)) return compareArrays(a, b);
  if (isDoc(a) && isDoc(b)) return compareDocs(a, b);
  const tag = bsonTag(a);
  if (isObjectId(a) && isObjectId(b)) return compareStrings(a.toHexString(), b.toHexString());
  if (isTimestamp(a) && isTimestamp(b)) return Math.sign(a.t - b.t) || Math.sign(a.i - b.i);
  if (tag === 'Binary') {
    const x = bytesOf(a);
    const y = bytesOf(b);
    // BinData orders by length, then subtype, then bytes.
    if (x.length !== y.length) return Math.sign(x.length - y.length);
    const bySubtype = (a as { sub_type: number }).sub_type - (b as { sub_type: number }).sub_type;
    return bySubtype !== 0 ? Math.sign(bySubtype) : Buffer.compare(x, y);
  }
  if (typeRank(a) === 12) {
    const [pa, fa] = regexParts(a);
    const [pb, fb] = regexParts(b);
    return compareStrings(pa, pb) || compareStrings(fa, fb);
  }
  return 0;
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0;
}

/** A string that is equal for two values exactly when compareValues says they are equal. */
export function canonicalKey(value: unknown): string {
  if (value === null || value === undefined) return 'z';
  if (typeof value === 'string') return `s${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return value ? 'bt' : 'bf';
  if (isNumeric(value)) return numericKey(value);
  if (value instanceof Date) return `d${value.getTime()}`;
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalKey(item)).join(',')}]`;
  if (isDoc(value)) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalKey(item)}`)
      .join(',')}}`;
  }
  const tag = bsonTag(value);
  if (isObjectId(value)) return `o${value.toHexString()}`;
  if (tag === 'Binary') return `x${(value as { sub_type: number }).sub_type}:${bytesOf(value).toString('base64')}`;
  if (typeRank(value) === 12) return `r${JSON.stringify(regexParts(value))}`;
  if (isTimestamp(value)) return `t${value.t}:${value.i}`;
  return `${tag ?? typeof value}:${JSON.stringify(value)}`;
}
