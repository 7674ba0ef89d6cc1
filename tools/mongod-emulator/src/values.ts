// Shared vocabulary for BSON values as the emulator holds them: documents are plain objects whose
// leaves are the `bson` package's wrapper classes (deserialized with promoteValues: false), so the
// exact BSON type of every stored value survives until it is serialized back to the client.
import type { Binary, BSONRegExp, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';

/** How BSON is read, off the wire and off the disk: every value keeps the BSON type it was written with. */
export const BSON_READ_OPTIONS = { promoteValues: false, promoteLongs: false, promoteBuffers: false, bsonRegExp: true } as const;

export interface Doc {
  [key: string]: unknown;
}

/** The `_bsontype` tag the bson package puts on its wrapper classes. */
export function bsonTag(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

/** A plain embedded document (not an array, Date, RegExp, Buffer or BSON wrapper). */
export function isDoc(value: unknown): value is Doc {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value) || value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return false;
  return bsonTag(value) === undefined;
}

/** A type guard for one bson wrapper class, recognised by its `_bsontype` tag. */
function tagGuard<T extends { _bsontype: string }>(tag: T['_bsontype']): (value: unknown) => value is T {
  return (value: unknown): value is T => bsonTag(value) === tag;
}

export const isInt32 = tagGuard<Int32>('Int32');
export const isLong = tagGuard<Long>('Long');
export const isDouble = tagGuard<Double>('Double');
export const isDecimal = tagGuard<Decimal128>('Decimal128');
export const isObjectId = tagGuard<ObjectId>('ObjectId');
export const isBinary = tagGuard<Binary>('Binary');
export const isTimestamp = tagGuard<Timestamp>('Timestamp');
export const isBsonRegExp = tagGuard<BSONRegExp>('BSONRegExp');

export type NumericValue = number | Int32 | Long | Double | Decimal128;

export function isNumeric(value: unknown): value is NumericValue {
  if (typeof value === 'number') return true;
  const tag = bsonTag(value);
  return tag === 'Int32' || tag === 'Long' || tag === 'Double' || tag === 'Decimal128';
}

/** Reads a numeric option (limit, skip, batchSize...) from a command, whatever BSON type the driver used. */
export function numberOption(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (isInt32(value) || isDouble(value)) return value.value;
  if (isLong(value)) return value.toNumber();
  return undefined;
}

/** Truthiness of a command flag such as `unique: true` or `new: 1`. */
export function flagOption(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  const n = numberOption(value);
  return n !== undefined && n !== 0;
}

/** Array.isArray without widening to any[]. */
export function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

/** Deep copy of plain documents and arrays; BSON wrappers are immutable here and shared. */
export function cloneValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneValue(item)) as T;
  if (isDoc(value)) {
    const copy: Doc = {};
    for (const [key, item] of Object.entries(value)) copy[key] = cloneValue(item);
    return copy as T;
  }
  return value;
}
