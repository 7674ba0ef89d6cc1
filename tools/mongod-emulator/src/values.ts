// Shared vocabulary for BSON values as the emulator holds them: documents are plain objects whose
// leaves are the `bson` package's wrapper classes (deserialized with promoteValues: false), so the
// exact BSON type of every stored value survives until it is serialized back to the client.
import type { Binary, BSONRegExp, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';

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

export function isInt32(value: unknown): value is Int32 {
  return bsonTag(value) === 'Int32';
}
export function isLong(value: unknown): value is Long {
  return bsonTag(value) === 'Long';
}
export function isDouble(value: unknown): value is Double {
  return bsonTag(value) === 'Double';
}
export function isDecimal(value: unknown): value is Decimal128 {
  return bsonTag(value) === 'Decimal128';
}
export function isObjectId(value: unknown): value is ObjectId {
  return bsonTag(value) === 'ObjectId';
}
export function isBinary(value: unknown): value is Binary {
  return bsonTag(value) === 'Binary';
}
export function isTimestamp(value: unknown): value is Timestamp {
  return bsonTag(value) === 'Timestamp';
}
export function isBsonRegExp(value: unknown): value is BSONRegExp {
  return bsonTag(value) === 'BSONRegExp';
}

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
