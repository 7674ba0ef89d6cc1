// Query filters ({ a: 5, b: { $gt: 1 }, $or: [...] }) compiled once into a predicate over documents,
// following MongoDB's rules: implicit array traversal, null matching missing fields, type brackets
// for range operators and numeric equality across BSON number types.
import { BSONRegExp } from 'bson';
import { CommandError, notImplemented } from '../errors.js';
import { bsonTag, isBsonRegExp, isDoc, isNumeric, numberOption, type Doc } from '../values.js';
import { compareValues, typeRank } from './compare.js';
import { toDouble } from './numbers.js';
import { pathValues } from './path.js';

export type Predicate = (doc: Doc) => boolean;
type ValueTest = (value: unknown) => boolean;

/** mongod's query operators the emulator lacks: refused by name rather than called unknown. */
const UNIMPLEMENTED_TOP_LEVEL = new Set(['$expr', '$where', '$text', '$jsonSchema', '$sampleRate']);
const UNIMPLEMENTED_FIELD_OPERATORS = new Set([
  '$bitsAllSet',
  '$bitsAllClear',
  '$bitsAnySet',
  '$bitsAnyClear',
  '$geoWithin',
  '$geoIntersects',
  '$near',
  '$nearSphere',
  '$within',
]);

const TYPE_ALIASES: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  javascript: 13,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

/** The BSON type number mongod's $type operator uses for a value. */
export function bsonTypeNumber(value: unknown): number {
  if (value === null || value === undefined) return 10;
  if (typeof value === 'string') return 2;
  if (typeof value === 'boolean') return 8;
  if (typeof value === 'number') return 1;
  if (Array.isArray(value)) return 4;
  if (value instanceof Date) return 9;
  if (value instanceof RegExp) return 11;
  const byTag: Record<string, number> = {
    Double: 1,
    Binary: 5,
    ObjectId: 7,
    BSONRegExp: 11,
    Code: 13,
    Int32: 16,
    Timestamp: 17,
    Long: 18,
    Decimal128: 19,
    MinKey: -1,
    MaxKey: 127,
  };
  const tag = bsonTag(value);
  return tag === undefined ? 3 : (byTag[tag] ?? 3);
}

export function toRegExp(value: unknown, options = ''): RegExp {
  if (value instanceof RegExp) return options ? new RegExp(value.source, options) : value;
  const pattern = isBsonRegExp(value) ? value.pattern : String(value);
  const flags = (isBsonRegExp(value) ? value.options : '') + options;
  // JS knows i, m, s, u; mongod's x (extended) is not supported here and dropped.
  return new RegExp(pattern, [...new Set(flags)].filter((flag) => 'imsu'.includes(flag)).join(''));
}

function isRegexValue(value: unknown): boolean {
  return value instanceof RegExp || value instanceof BSONRegExp || isBsonRegExp(value);
}

/** A test applied to a leaf value and, when that value is an array, to each of its elements. */
function anyOf(test: ValueTest): ValueTest {
  return (value) => test(value) || (Array.isArray(value) && value.some((element: unknown) => test(element)));
}

function equalsTest(target: unknown): ValueTest {
  if (isRegexValue(target)) {
    const regex = toRegExp(target);
    return anyOf((value) => (typeof value === 'string' ? regex.test(value) : isRegexValue(value) && compareValues(value, target) === 0));
  }
  if (target === null) return anyOf((value) => value === null || value === undefined);
  return anyOf((value) => value !== undefined && compareValues(value, target) === 0);
}

function rangeTest(target: unknown, accept: (order: number) => boolean): ValueTest {
  const rank = typeRank(target);
  return anyOf((value) => {
    // MinKey/MaxKey bounds span every type; otherwise only same-bracket values compare.
    if (rank !== 1 && rank !== 127 && typeRank(value) !== rank) return false;
    return accept(compareValues(value === undefined ? null : value, target));
  });
}

function typeTest(spec: unknown): ValueTest {
  const wanted = (Array.isArray(spec) ? spec : [spec]).map((item: unknown) => {
    if (typeof item === 'string') {
      if (item === 'number') return 'number';
      const code = TYPE_ALIASES[item];
      if (code === undefined) throw new CommandError('BadValue', `Unknown type name alias: ${item}`);
      return code;
    }
    const code = numberOption(item);
    if (code === undefined) throw new CommandError('TypeMismatch', 'type must be represented as a number or a string');
    return code;
  });
  const matches = (value: unknown): boolean =>
    value !== undefined && wanted.some((code) => (code === 'number' ? isNumeric(value) : bsonTypeNumber(value) === code));
  return (value) => matches(value) || (Array.isArray(value) && value.some((element: unknown) => matches(element)));
}

function elemMatchTest(spec: unknown): ValueTest {
  if (!isDoc(spec)) throw new CommandError('BadValue', '$elemMatch needs an Object');
  const keys = Object.keys(spec);
  const operatorForm = keys.length > 0 && keys.every((key) => key.startsWith('$') && !['$and', '$or', '$nor', '$expr'].includes(key));
  const test: ValueTest = operatorForm ? operatorTest(spec) : (element) => isDoc(element) && compileFilter(spec)(element);
  return (value) => Array.isArray(value) && value.some((element: unknown) => test(element));
}

function requireArray(operator: string, operand: unknown): unknown[] {
  if (!Array.isArray(operand)) throw new CommandError('BadValue', `${operator} needs an array`);
  return operand;
}

function singleOperator(operator: string, operand: unknown, spec: Doc): ValueTest {
  switch (operator) {
    case '$eq':
      return equalsTest(operand);
    case '$ne': {
      const equal = equalsTest(operand);
      return (value) => !equal(value);
    }
    case '$gt':
      return rangeTest(operand, (order) => order > 0);
    case '$gte':
      return rangeTest(operand, (order) => order >= 0);
    case '$lt':
      return rangeTest(operand, (order) => order < 0);
    case '$lte':
      return rangeTest(operand, (order) => order <= 0);
    case '$in': {
      const tests = requireArray('$in', operand).map((item) => equalsTest(item));
      return (value) => tests.some((test) => test(value));
    }
    case '$nin': {
      const tests = requireArray('$nin', operand).map((item) => equalsTest(item));
      return (value) => !tests.some((test) => test(value));
    }
    case '$exists': {
      const wanted = operand !== false && operand !== 0 && numberOption(operand) !== 0;
      return (value) => (value !== undefined) === wanted;
    }
    case '$type':
      return typeTest(operand);
    case '$regex': {
      const options = typeof spec.$options === 'string' ? spec.$options : '';
      const regex = toRegExp(operand, options);
      return anyOf((value) => typeof value === 'string' && regex.test(value));
    }
    case '$options':
      return () => true;
    case '$size': {
      const size = numberOption(operand);
      return (value) => Array.isArray(value) && value.length === size;
    }
    case '$all': {
      const items = requireArray('$all', operand);
      if (items.length === 0) return () => false;
      const tests = items.map((item) => (isDoc(item) && '$elemMatch' in item ? elemMatchTest(item.$elemMatch) : equalsTest(item)));
      return (value) => tests.every((test) => test(value));
    }
    case '$elemMatch':
      return elemMatchTest(operand);
    case '$not': {
      const inner = isRegexValue(operand) ? equalsTest(operand) : isDoc(operand) ? operatorTest(operand) : undefined;
      if (!inner) throw new CommandError('BadValue', '$not needs a regex or a document');
      return (value) => !inner(value);
    }
    case '$mod': {
      const [divisor, remainder] = requireArray('$mod', operand).map((item) => numberOption(item) ?? Number.NaN);
      return anyOf((value) => isNumeric(value) && Math.trunc(toDouble(value)) % (divisor ?? 1) === remainder);
    }
    case '$comment':
      return () => true;
    default:
      if (UNIMPLEMENTED_FIELD_OPERATORS.has(operator)) throw notImplemented(`the ${operator} query operator`);
      throw new CommandError('BadValue', `unknown operator: ${operator}`);
  }
}

/** `{ $gt: 1, $lt: 5 }`: all operators must hold for the same path. */
function operatorTest(spec: Doc): ValueTest {
  const tests = Object.entries(spec).map(([operator, operand]) => singleOperator(operator, operand, spec));
  return (value) => tests.every((test) => test(value));
}

function isOperatorDoc(value: unknown): value is Doc {
  if (!isDoc(value)) return false;
  const first = Object.keys(value)[0];
  return first?.startsWith('$') ?? false;
}

function fieldPredicate(path: string, condition: unknown): Predicate {
  const parts = path.split('.');
  const test = isOperatorDoc(condition) ? operatorTest(condition) : equalsTest(condition);
  // Negative operators must hold for every reached value, positive ones for at least one.
  const negative =
    isOperatorDoc(condition) &&
    Object.keys(condition).some((key) => key === '$ne' || key === '$nin' || key === '$not' || (key === '$exists' && !condition.$exists));
  return (doc) => {
    const values = pathValues(doc, parts);
    return negative ? values.every((value) => test(value)) : values.some((value) => test(value));
  };
}

function logicalPredicate(operator: string, operand: unknown): Predicate {
  if (operator === '$comment') return () => true;
  if (UNIMPLEMENTED_TOP_LEVEL.has(operator)) throw notImplemented(`the ${operator} query operator`);
  if (!Array.isArray(operand) || operand.length === 0) throw new CommandError('BadValue', `${operator} must be a nonempty array`);
  const parts = operand.map((item: unknown) => {
    if (!isDoc(item)) throw new CommandError('BadValue', `${operator} argument's entries must be objects`);
    return compileFilter(item);
  });
  if (operator === '$and') return (doc) => parts.every((part) => part(doc));
  if (operator === '$or') return (doc) => parts.some((part) => part(doc));
  if (operator === '$nor') return (doc) => !parts.some((part) => part(doc));
  throw new CommandError('BadValue', `unknown top level operator: ${operator}`);
}

export function compileFilter(filter: Doc): Predicate {
  const predicates = Object.entries(filter).map(([key, condition]) =>
    key.startsWith('$') ? logicalPredicate(key, condition) : fieldPredicate(key, condition),
  );
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0] ?? (() => true);
  return (doc) => predicates.every((predicate) => predicate(doc));
}

/** Predicate over a single value (an array element for $pull), with query semantics. */
export function compileValueTest(condition: unknown): (value: unknown) => boolean {
  if (isOperatorDoc(condition)) return operatorTest(condition);
  if (isDoc(condition)) {
    const asFilter = compileFilter(condition);
    const asValue = equalsTest(condition);
    return (value) => (isDoc(value) ? asFilter(value) : asValue(value));
  }
  return equalsTest(condition);
}
