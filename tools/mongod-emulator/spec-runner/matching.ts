// The unified test format's "Evaluating Matches": expected values are matched against actual ones
// with flexible numerics, extra fields allowed in root-level documents only, arrays of equal length,
// and the `$$` operators the CRUD tests use. A mismatch is reported as a path and a reason.
import { EJSON } from 'bson';
import type { Document } from 'mongodb';

export type Entities = ReadonlyMap<string, unknown>;

type Bson = { _bsontype: string };

function bsonType(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tag = (value as Partial<Bson>)._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

export function isPlainDocument(value: unknown): value is Document {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !ArrayBuffer.isView(value) &&
    bsonType(value) === undefined
  );
}

/** The single key and value of an entity, event or bulk write model definition. */
export function firstEntry(value: unknown): [string, unknown] {
  const entries: [string, unknown][] = isPlainDocument(value) ? Object.entries(value) : [];
  return entries[0] ?? ['', undefined];
}

/** The number behind a JS number or a BSON Int32/Long/Double, or undefined for anything else. */
export function numericValue(value: unknown): number | bigint | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  const tag = bsonType(value);
  if (tag === 'Long') return (value as { toBigInt(): bigint }).toBigInt();
  if (tag === 'Int32' || tag === 'Double') return (value as { value: number }).value;
  return undefined;
}

function numbersEqual(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const whole = (n: number | bigint): bigint | undefined => (typeof n === 'bigint' ? n : Number.isInteger(n) ? BigInt(n) : undefined);
    const left = whole(a);
    const right = whole(b);
    return left !== undefined && left === right;
  }
  return a === b;
}

/** mongod's `$type` alias for a value as the driver returns it. */
export function typeAlias(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? 'int' : 'double';
  if (typeof value === 'bigint') return 'long';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  const aliases: Record<string, string> = {
    Int32: 'int',
    Long: 'long',
    Double: 'double',
    Decimal128: 'decimal',
    ObjectId: 'objectId',
    Binary: 'binData',
    Timestamp: 'timestamp',
    BSONRegExp: 'regex',
    MinKey: 'minKey',
    MaxKey: 'maxKey',
    Code: 'javascript',
    BSONSymbol: 'symbol',
    DBRef: 'object',
  };
  const tag = bsonType(value);
  return tag === undefined ? 'object' : (aliases[tag] ?? tag);
}

function typeMatches(expected: unknown, actual: unknown): boolean {
  const wanted = Array.isArray(expected) ? expected : [expected];
  const alias = typeAlias(actual);
  // A whole-number double comes back from the driver as a JS number: accept it as either.
  const aliases = alias === 'int' ? ['int', 'double', 'number'] : alias === 'long' || alias === 'double' ? [alias, 'number'] : [alias];
  return wanted.some((name) => typeof name === 'string' && aliases.includes(name));
}

function describe(value: unknown): string {
  try {
    return EJSON.stringify(value, { relaxed: true });
  } catch {
    return String(value);
  }
}

/** The single `$$operator` of an expected value, if it is one. */
function specialOperator(expected: unknown): [string, unknown] | undefined {
  if (!isPlainDocument(expected)) return undefined;
  const keys = Object.keys(expected);
  const [first] = keys;
  return keys.length === 1 && first?.startsWith('$$') ? [first, expected[first]] : undefined;
}

export class Matcher {
  constructor(private readonly entities: Entities) {}

  /** Undefined when `actual` matches `expected`, otherwise why not. */
  match(expected: unknown, found: unknown, path = '', root = true): string | undefined {
    // The driver keeps some command fields (sort, index keys) as Maps to hold their order.
    const actual = found instanceof Map ? Object.fromEntries(found as Map<string, unknown>) : found;
    const operator = specialOperator(expected);
    if (operator) return this.operator(operator[0], operator[1], actual, path, root);
    if (isPlainDocument(expected)) return this.document(expected, actual, path, root);
    if (Array.isArray(expected)) return this.array(expected, actual, path);
    return this.scalar(expected, actual, path);
  }

  /** Like match, but each array element is a root-level document (find, aggregate, listIndexes results). */
  matchRootArray(expected: unknown, actual: unknown): string | undefined {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return this.match(expected, actual);
    if (expected.length !== actual.length) return `expected ${expected.length} documents, got ${actual.length}: ${describe(actual)}`;
    for (const [index, item] of expected.entries()) {
      const problem = this.match(item, actual[index], `[${index}]`, true);
      if (problem) return problem;
    }
    return undefined;
  }

  private operator(name: string, operand: unknown, actual: unknown, path: string, root: boolean): string | undefined {
    switch (name) {
      case '$$unsetOrMatches':
        return actual === undefined ? undefined : this.match(operand, actual, path, root);
      case '$$exists':
        return (actual !== undefined) === operand
          ? undefined
          : `${path}: expected ${operand ? 'present' : 'absent'}, got ${describe(actual)}`;
      case '$$type':
        return actual !== undefined && typeMatches(operand, actual)
          ? undefined
          : `${path}: expected type ${describe(operand)}, got ${typeAlias(actual)}`;
      case '$$matchesEntity': {
        if (typeof operand !== 'string' || !this.entities.has(operand)) throw new Error(`$$matchesEntity: no entity ${String(operand)}`);
        return this.match(this.entities.get(operand), actual, path, root);
      }
      case '$$lte': {
        const limit = numericValue(operand);
        const value = numericValue(actual);
        return limit !== undefined && value !== undefined && value <= limit
          ? undefined
          : `${path}: expected <= ${describe(operand)}, got ${describe(actual)}`;
      }
      case '$$matchAsRoot':
        return this.match(operand, actual, path, true);
      default:
        throw new UnsupportedByRunner(`the ${name} matching operator`);
    }
  }

  private document(expected: Document, actual: unknown, path: string, root: boolean): string | undefined {
    if (!isPlainDocument(actual)) return `${path || 'result'}: expected a document, got ${describe(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const child = path ? `${path}.${key}` : key;
      const operator = specialOperator(value);
      if (operator && (operator[0] === '$$exists' || operator[0] === '$$unsetOrMatches')) {
        const problem = this.operator(operator[0], operator[1], actual[key], child, false);
        if (problem) return problem;
        continue;
      }
      if (!(key in actual)) return `${child}: missing (expected ${describe(value)})`;
      const problem = this.match(value, actual[key], child, false);
      if (problem) return problem;
    }
    if (!root) {
      const extra = Object.keys(actual).find((key) => !(key in expected));
      if (extra !== undefined) return `${path}: unexpected field ${extra} in ${describe(actual)}`;
    }
    return undefined;
  }

  private array(expected: unknown[], actual: unknown, path: string): string | undefined {
    if (!Array.isArray(actual)) return `${path || 'result'}: expected an array, got ${describe(actual)}`;
    if (expected.length !== actual.length) return `${path || 'result'}: expected ${expected.length} elements, got ${describe(actual)}`;
    for (const [index, item] of expected.entries()) {
      const problem = this.match(item, actual[index], `${path}[${index}]`, false);
      if (problem) return problem;
    }
    return undefined;
  }

  private scalar(expected: unknown, actual: unknown, path: string): string | undefined {
    return sameValue(expected, actual) ? undefined : `${path || 'result'}: expected ${describe(expected)}, got ${describe(actual)}`;
  }
}

/** Equality of non-container values: numbers across BSON types, BSON values by their extended JSON. */
export function sameValue(expected: unknown, actual: unknown): boolean {
  const left = numericValue(expected);
  const right = numericValue(actual);
  if (left !== undefined || right !== undefined) return left !== undefined && right !== undefined && numbersEqual(left, right);
  if (typeAlias(expected) === 'decimal' || typeAlias(actual) === 'decimal')
    return typeAlias(expected) === typeAlias(actual) && String(expected) === String(actual);
  if (expected === null || actual === null || typeof expected !== 'object' || typeof actual !== 'object') return expected === actual;
  return describe(expected) === describe(actual);
}

/** Exact equality of stored documents (test outcome): no extra fields at any level, key order free. */
export function exactlyEqual(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.length === actual.length && expected.every((item, index) => exactlyEqual(item, actual[index]));
  }
  if (isPlainDocument(expected)) {
    if (!isPlainDocument(actual)) return false;
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length && keys.every((key) => key in actual && exactlyEqual(expected[key], actual[key]));
  }
  return sameValue(expected, actual);
}

/** A feature of the test format this runner does not implement: the test is skipped, naming it. */
export class UnsupportedByRunner extends Error {}
