// Aggregation expressions ("$field", { $add: [...] }, literals) as used by $project, $group and
// friends. Only the everyday operators are implemented; others fail like an unknown operator.
import { Double, Int32 } from 'bson';
import { CommandError } from '../errors.js';
import { isArray, isDoc, isNumeric, type Doc, type NumericValue } from '../values.js';
import { compareValues } from './compare.js';
import { addNumbers, multiplyNumbers, negateNumber, toDouble } from './numbers.js';

/** Field path reference with aggregation semantics: arrays map to arrays of the sub-field. */
function fieldValue(value: unknown, parts: readonly string[], from = 0): unknown {
  if (from === parts.length) return value;
  const part = parts[from] ?? '';
  if (isDoc(value)) return fieldValue(value[part], parts, from + 1);
  if (Array.isArray(value)) {
    return value.map((element: unknown) => fieldValue(element, parts, from)).filter((element) => element !== undefined);
  }
  return undefined;
}

function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (isNumeric(value)) return toDouble(value) !== 0;
  return true;
}

function args(operand: unknown, root: Doc): unknown[] {
  return Array.isArray(operand) ? operand.map((item: unknown) => evaluate(item, root)) : [evaluate(operand, root)];
}

function numbersOf(values: readonly unknown[]): NumericValue[] | null {
  if (values.some((value) => value === null || value === undefined)) return null;
  return values.map((value) => {
    if (!isNumeric(value)) throw new CommandError('TypeMismatch', `only numeric types are supported, got ${typeof value}`);
    return value;
  });
}

function sumOf(values: readonly unknown[]): NumericValue {
  let total: NumericValue = new Int32(0);
  for (const value of values.flat()) if (isNumeric(value)) total = addNumbers(total, value);
  return total;
}

const COMPARISONS: Record<string, (order: number) => boolean> = {
  $eq: (order) => order === 0,
  $ne: (order) => order !== 0,
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
};

function applyOperator(operator: string, operand: unknown, root: Doc): unknown {
  const comparison = COMPARISONS[operator];
  if (comparison) {
    const [a, b] = args(operand, root);
    return comparison(compareValues(a ?? null, b ?? null));
  }
  switch (operator) {
    case '$literal':
      return operand;
    case '$add': {
      const values = numbersOf(args(operand, root));
      return values === null ? null : values.reduce<NumericValue>((sum, value) => addNumbers(sum, value), new Int32(0));
    }
    case '$multiply': {
      const values = numbersOf(args(operand, root));
      return values === null ? null : values.reduce<NumericValue>((product, value) => multiplyNumbers(product, value), new Int32(1));
    }
    case '$subtract': {
      const values = numbersOf(args(operand, root));
      return values === null || values.length !== 2 ? null : addNumbers(values[0] ?? 0, negateNumber(values[1] ?? 0));
    }
    case '$divide': {
      const values = numbersOf(args(operand, root));
      if (values === null) return null;
      const divisor = toDouble(values[1] ?? 0);
      if (divisor === 0) throw CommandError.location(2, "can't $divide by zero");
      return new Double(toDouble(values[0] ?? 0) / divisor);
    }
    case '$sum':
      return sumOf(args(operand, root));
    case '$avg': {
      const values = args(operand, root)
        .flat()
        .filter((value) => isNumeric(value));
      return values.length === 0 ? null : new Double(toDouble(sumOf(values)) / values.length);
    }
    case '$min':
    case '$max': {
      const values = args(operand, root)
        .flat()
        .filter((value) => value !== null && value !== undefined);
      const sign = operator === '$min' ? -1 : 1;
      return values.reduce<unknown>((best, value) => (best === null || compareValues(value, best) * sign > 0 ? value : best), null);
    }
    case '$concat': {
      const values = args(operand, root);
      return values.some((value) => value === null || value === undefined) ? null : values.map(String).join('');
    }
    case '$toUpper':
    case '$toLower': {
      const [value] = args(operand, root);
      const text = typeof value === 'string' ? value : isNumeric(value) ? String(toDouble(value)) : '';
      return operator === '$toUpper' ? text.toUpperCase() : text.toLowerCase();
    }
    case '$size': {
      const [value] = args(operand, root);
      if (!Array.isArray(value)) throw CommandError.location(17124, 'The argument to $size must be an array');
      return new Int32(value.length);
    }
    case '$arrayElemAt': {
      const [array, index] = args(operand, root);
      if (!Array.isArray(array) || !isNumeric(index)) return null;
      const position = toDouble(index);
      return array.at(position) as unknown;
    }
    case '$in': {
      const [value, array] = args(operand, root);
      return Array.isArray(array) && array.some((item: unknown) => compareValues(item, value ?? null) === 0);
    }
    case '$ifNull': {
      const values = args(operand, root);
      return values.find((value) => value !== null && value !== undefined) ?? values.at(-1) ?? null;
    }
    case '$cond': {
      const [condition, then, otherwise]: unknown[] = isDoc(operand)
        ? [operand.if, operand.then, operand.else]
        : isArray(operand)
          ? operand
          : [];
      return truthy(evaluate(condition, root)) ? evaluate(then, root) : evaluate(otherwise, root);
    }
    case '$and':
      return args(operand, root).every(truthy);
    case '$or':
      return args(operand, root).some(truthy);
    case '$not':
      return !truthy(args(operand, root)[0]);
    default:
      throw new CommandError('InvalidPipelineOperator', `Unrecognized expression '${operator}'`);
  }
}

/** Evaluates an aggregation expression against a document; undefined means "missing". */
export function evaluate(expression: unknown, root: Doc): unknown {
  if (typeof expression === 'string' && expression.startsWith('$')) {
    if (expression === '$$ROOT' || expression === '$$CURRENT') return root;
    if (expression === '$$REMOVE') return undefined;
    if (expression.startsWith('$$ROOT.') || expression.startsWith('$$CURRENT.')) {
      return fieldValue(root, expression.slice(expression.indexOf('.') + 1).split('.'));
    }
    return fieldValue(root, expression.slice(1).split('.'));
  }
  if (Array.isArray(expression)) return expression.map((item: unknown) => evaluate(item, root));
  if (isDoc(expression)) {
    const keys = Object.keys(expression);
    const first = keys[0];
    if (keys.length === 1 && first?.startsWith('$')) return applyOperator(first, expression[first], root);
    const result: Doc = {};
    for (const [key, value] of Object.entries(expression)) {
      const evaluated = evaluate(value, root);
      if (evaluated !== undefined) result[key] = evaluated;
    }
    return result;
  }
  return expression;
}
