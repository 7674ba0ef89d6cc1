// Update documents: operator updates ($set, $inc, $push...), replacements and pipeline updates,
// applied to a copy of the stored document. Errors mirror mongod's codes and messages.
import { calculateObjectSize, Double, Int32, Long, serialize, Timestamp } from 'bson';
import { CommandError } from '../errors.js';
import {
  cloneValue,
  isArray,
  isDoc,
  isNumeric,
  isDecimal,
  isLong,
  isDouble,
  numberOption,
  type Doc,
  type NumericValue,
} from '../values.js';
import { canonicalKey, compareValues, valuesEqual } from './compare.js';
import { validateReplacement, validateUpdatedPath } from './field-names.js';
import { compileValueTest } from './match.js';
import { addNumbers, multiplyNumbers } from './numbers.js';
import { getPath, setPath, unsetPath } from './path.js';
import { sortDocuments } from './sort.js';

export interface UpdateResult {
  doc: Doc;
  modified: boolean;
}

/** Operators that only take fields or elements away, so never create a `$`-prefixed field. */
const REMOVING_OPERATORS = new Set(['$unset', '$pull', '$pullAll', '$pop']);

/** Pipeline-style updates are run by the aggregation module, which plugs itself in here. */
export type PipelineRunner = (doc: Doc, pipeline: readonly unknown[]) => Doc;

function describeValue(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (isDoc(value)) return 'object';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Date) return 'date';
  return typeof value;
}

function idText(doc: Doc): string {
  return `{_id: ${JSON.stringify(doc._id)}}`;
}

function requireNumeric(operator: string, path: string, operand: unknown): asserts operand is NumericValue {
  if (!isNumeric(operand)) {
    const verb = operator === '$inc' ? 'increment' : 'multiply';
    throw new CommandError('TypeMismatch', `Cannot ${verb} with non-numeric argument: {${path}: ${JSON.stringify(operand)}}`);
  }
}

function zeroLike(operand: unknown): unknown {
  if (isLong(operand)) return Long.fromInt(0);
  if (isDouble(operand) || typeof operand === 'number') return new Double(0);
  if (isDecimal(operand)) return multiplyNumbers(operand, new Int32(0));
  return new Int32(0);
}

function arrayAt(doc: Doc, path: string): unknown[] | undefined {
  const current = getPath(doc, path);
  if (current === undefined) return undefined;
  if (!isArray(current)) {
    throw new CommandError(
      'BadValue',
      `The field '${path}' must be an array but is of type ${describeValue(current)} in document ${idText(doc)}`,
    );
  }
  return current;
}

function eachOf(operand: unknown): { items: unknown[]; modifiers: Doc } {
  if (isDoc(operand) && '$each' in operand) {
    if (!Array.isArray(operand.$each)) throw new CommandError('BadValue', 'The argument to $each must be an array');
    return { items: operand.$each.map((item: unknown) => cloneValue(item)), modifiers: operand };
  }
  return { items: [cloneValue(operand)], modifiers: {} };
}

function push(doc: Doc, path: string, operand: unknown): void {
  const { items, modifiers } = eachOf(operand);
  let array = [...(arrayAt(doc, path) ?? [])];
  const position = numberOption(modifiers.$position);
  if (position === undefined) array.push(...items);
  else array.splice(position < 0 ? Math.max(array.length + position, 0) : position, 0, ...items);
  if (modifiers.$sort !== undefined) {
    if (isDoc(modifiers.$sort)) array = sortDocuments(array.filter(isDoc), modifiers.$sort);
    else {
      const direction = numberOption(modifiers.$sort) ?? 1;
      array.sort((a, b) => compareValues(a, b) * direction);
    }
  }
  const slice = numberOption(modifiers.$slice);
  if (slice !== undefined) array = slice >= 0 ? array.slice(0, slice) : array.slice(slice);
  setPath(doc, path, array);
}

function addToSet(doc: Doc, path: string, operand: unknown): void {
  const { items } = eachOf(operand);
  const array = [...(arrayAt(doc, path) ?? [])];
  const seen = new Set(array.map((item) => canonicalKey(item)));
  for (const item of items) {
    const key = canonicalKey(item);
    if (!seen.has(key)) {
      seen.add(key);
      array.push(item);
    }
  }
  setPath(doc, path, array);
}

function applyOperator(doc: Doc, operator: string, path: string, operand: unknown, inserting: boolean): void {
  switch (operator) {
    case '$set':
      setPath(doc, path, cloneValue(operand));
      return;
    case '$setOnInsert':
      if (inserting) setPath(doc, path, cloneValue(operand));
      return;
    case '$unset':
      unsetPath(doc, path);
      return;
    case '$inc':
    case '$mul': {
      requireNumeric(operator, path, operand);
      const current = getPath(doc, path);
      if (current === undefined) {
        setPath(doc, path, operator === '$inc' ? operand : zeroLike(operand));
        return;
      }
      if (!isNumeric(current)) {
        throw new CommandError(
          'TypeMismatch',
          `Cannot apply ${operator} to a value of non-numeric type. ${idText(doc)} has the field '${path}' of non-numeric type ${describeValue(current)}`,
        );
      }
      setPath(doc, path, operator === '$inc' ? addNumbers(current, operand) : multiplyNumbers(current, operand));
      return;
    }
    case '$min':
    case '$max': {
      const current = getPath(doc, path);
      const order = current === undefined ? 0 : compareValues(operand, current);
      if (current === undefined || (operator === '$min' ? order < 0 : order > 0)) setPath(doc, path, cloneValue(operand));
      return;
    }
    case '$push':
      push(doc, path, operand);
      return;
    case '$addToSet':
      addToSet(doc, path, operand);
      return;
    case '$pull':
    case '$pullAll': {
      const array = arrayAt(doc, path);
      if (array === undefined) return;
      const test =
        operator === '$pull'
          ? compileValueTest(operand)
          : (value: unknown) => Array.isArray(operand) && operand.some((item: unknown) => valuesEqual(item, value));
      setPath(
        doc,
        path,
        array.filter((item) => !test(item)),
      );
      return;
    }
    case '$pop': {
      const array = arrayAt(doc, path);
      if (array !== undefined) setPath(doc, path, (numberOption(operand) ?? 1) < 0 ? array.slice(1) : array.slice(0, -1));
      return;
    }
    case '$rename': {
      if (typeof operand !== 'string')
        throw new CommandError('BadValue', `The 'to' field for $rename must be a string: ${path}: ${JSON.stringify(operand)}`);
      const value = getPath(doc, path);
      if (value === undefined) return;
      unsetPath(doc, path);
      setPath(doc, operand, value);
      return;
    }
    case '$currentDate': {
      const wantsTimestamp = isDoc(operand) && operand.$type === 'timestamp';
      setPath(doc, path, wantsTimestamp ? new Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 }) : new Date());
      return;
    }
    default:
      throw new CommandError(
        'FailedToParse',
        `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
  }
}

function checkConflicts(paths: readonly string[]): void {
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i += 1) {
    const previous = sorted[i - 1] ?? '';
    const current = sorted[i] ?? '';
    if (current === previous || current.startsWith(`${previous}.`)) {
      throw new CommandError('ConflictingUpdateOperators', `Updating the path '${current}' would create a conflict at '${previous}'`);
    }
  }
}

export function isOperatorUpdate(update: Doc): boolean {
  return Object.keys(update)[0]?.startsWith('$') ?? false;
}

/** `_id` first, as mongod stores every document. */
export function withIdFirst(doc: Doc): Doc {
  if (Object.keys(doc)[0] === '_id' || doc._id === undefined) return doc;
  const { _id: id, ...rest } = doc;
  return { _id: id, ...rest };
}

function applyOperators(original: Doc, update: Doc, inserting: boolean): Doc {
  const doc = cloneValue(original);
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(update)) {
    if (!operator.startsWith('$'))
      throw new CommandError(
        'FailedToParse',
        `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    if (!isDoc(fields))
      throw new CommandError(
        'FailedToParse',
        `Modifiers operate on fields but we found type ${describeValue(fields)} instead. For example: {$mod: {<field>: ...}} not {${operator}: ${JSON.stringify(fields)}}`,
      );
    for (const [path, operand] of Object.entries(fields)) {
      paths.push(path);
      if (operator === '$rename' && typeof operand === 'string') {
        paths.push(operand);
        validateUpdatedPath(operand);
      } else if (!REMOVING_OPERATORS.has(operator)) validateUpdatedPath(path);
      applyOperator(doc, operator, path, operand, inserting);
    }
  }
  checkConflicts(paths);
  return doc;
}

function replacement(original: Doc, update: Doc): Doc {
  validateReplacement(update);
  return withIdFirst({ ...(original._id === undefined ? {} : { _id: original._id }), ...cloneValue(update) });
}

const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** Applies an update to a copy of `original`; `inserting` is true for the upsert insert case. */
export function applyUpdate(original: Doc, update: unknown, inserting: boolean, runPipeline: PipelineRunner): UpdateResult {
  let doc: Doc;
  if (Array.isArray(update)) doc = runPipeline(original, update);
  else if (isDoc(update)) doc = isOperatorUpdate(update) ? applyOperators(original, update, inserting) : replacement(original, update);
  else throw new CommandError('FailedToParse', 'Update argument must be either an object or an array');
  if (original._id !== undefined && (doc._id === undefined || canonicalKey(doc._id) !== canonicalKey(original._id))) {
    throw new CommandError(
      'ImmutableField',
      isDoc(update) && !isOperatorUpdate(update)
        ? `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${JSON.stringify(doc._id)}`
        : "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  doc = withIdFirst(doc);
  // mongod's limit on a stored document, and its refusal of an update that would cross it.
  if (calculateObjectSize(doc) > MAX_DOCUMENT_BYTES)
    throw CommandError.location(17419, `Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`);
  return { doc, modified: !Buffer.from(serialize(doc)).equals(Buffer.from(serialize(original))) };
}

/** The document an upsert starts from: the equality conditions of its filter. */
export function upsertSeed(filter: Doc): Doc {
  const seed: Doc = {};
  const visit = (conditions: Doc): void => {
    for (const [key, condition] of Object.entries(conditions)) {
      if (key === '$and' && Array.isArray(condition)) {
        for (const part of condition) if (isDoc(part)) visit(part);
      } else if (!key.startsWith('$')) {
        if (isDoc(condition) && Object.keys(condition)[0]?.startsWith('$')) {
          if ('$eq' in condition) setPath(seed, key, cloneValue(condition.$eq));
        } else setPath(seed, key, cloneValue(condition));
      }
    }
  };
  visit(filter);
  return seed;
}
