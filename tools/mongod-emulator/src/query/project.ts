// Projections for find and $project: inclusion or exclusion of (dotted) fields, `_id` kept unless
// excluded, computed fields via aggregation expressions, and find's `$slice`.
import { CommandError } from '../errors.js';
import { cloneValue, isDoc, isNumeric, numberOption, type Doc } from '../values.js';
import { evaluate } from './expression.js';
import { setPath } from './path.js';

type Entry = [path: string, spec: unknown];

function isFlag(value: unknown): boolean {
  return typeof value === 'boolean' || isNumeric(value);
}

function flagValue(value: unknown): boolean {
  return typeof value === 'boolean' ? value : numberOption(value) !== 0;
}

function isOperatorDoc(value: unknown): value is Doc {
  return isDoc(value) && (Object.keys(value)[0]?.startsWith('$') ?? false);
}

/** { a: { b: 1 } } is the same projection as { 'a.b': 1 }. */
function flatten(spec: Doc, prefix = ''): Entry[] {
  return Object.entries(spec).flatMap(([key, value]): Entry[] =>
    isDoc(value) && !isOperatorDoc(value) && Object.keys(value).length > 0
      ? flatten(value, `${prefix}${key}.`)
      : [[`${prefix}${key}`, value]],
  );
}

function includePath(source: unknown, target: Doc, parts: readonly string[], from: number): void {
  if (!isDoc(source)) return;
  const part = parts[from] ?? '';
  const value = source[part];
  if (value === undefined) return;
  if (from === parts.length - 1) {
    target[part] = value;
  } else if (isDoc(value)) {
    const child = isDoc(target[part]) ? target[part] : {};
    includePath(value, child, parts, from + 1);
    target[part] = child;
  } else if (Array.isArray(value)) {
    const existing = Array.isArray(target[part]) ? (target[part] as unknown[]) : [];
    const projected = value.flatMap((element: unknown, index): unknown[] => {
      if (!isDoc(element)) return [];
      const child = isDoc(existing[index]) ? existing[index] : {};
      includePath(element, child, parts, from + 1);
      return [child];
    });
    target[part] = projected;
  }
}

function excludePath(target: unknown, parts: readonly string[], from: number): void {
  if (Array.isArray(target)) {
    for (const element of target) excludePath(element, parts, from);
    return;
  }
  if (!isDoc(target)) return;
  const part = parts[from] ?? '';
  if (from === parts.length - 1) Reflect.deleteProperty(target, part);
  else excludePath(target[part], parts, from + 1);
}

function applySlice(doc: Doc, path: string, spec: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let parent: unknown = doc;
  for (const part of parts) parent = isDoc(parent) ? parent[part] : undefined;
  if (!isDoc(parent) || !Array.isArray(parent[last])) return;
  const array = parent[last] as unknown[];
  const [skip, limit]: [number | undefined, number] = Array.isArray(spec)
    ? [numberOption(spec[0]) ?? 0, numberOption(spec[1]) ?? 0]
    : [undefined, numberOption(spec) ?? 0];
  if (skip === undefined) parent[last] = limit >= 0 ? array.slice(0, limit) : array.slice(limit);
  else {
    const start = skip < 0 ? Math.max(array.length + skip, 0) : skip;
    parent[last] = array.slice(start, start + limit);
  }
}

/** Applies a projection specification to one document, returning a new document. */
export function project(doc: Doc, spec: Doc): Doc {
  const entries = flatten(spec);
  const slices = entries.filter(([, value]) => isDoc(value) && '$slice' in value && Object.keys(value).length === 1);
  const rest = entries.filter((entry) => !slices.includes(entry));
  const fields = rest.filter(([path]) => path !== '_id');
  const idEntry = rest.find(([path]) => path === '_id');
  const exclusion = fields.some(([, value]) => isFlag(value) && !flagValue(value));
  const inclusion = fields.some(([, value]) => !isFlag(value) || flagValue(value));
  if (exclusion && inclusion) {
    const [path] = fields.find(([, value]) => isFlag(value) && !flagValue(value)) ?? ['?'];
    throw CommandError.location(31254, `Invalid $project :: caused by :: Cannot do exclusion on field ${path} in inclusion projection`);
  }
  let result: Doc;
  if (inclusion) {
    result = {};
    const keepId = idEntry === undefined || !isFlag(idEntry[1]) || flagValue(idEntry[1]);
    if (keepId && idEntry !== undefined && !isFlag(idEntry[1])) result._id = evaluate(idEntry[1], doc);
    else if (keepId && doc._id !== undefined) result._id = doc._id;
    for (const [path, value] of fields) {
      if (isFlag(value)) includePath(doc, result, path.split('.'), 0);
      else {
        const computed = evaluate(value, doc);
        if (computed !== undefined) setPath(result, path, computed);
      }
    }
  } else {
    result = cloneValue(doc);
    for (const [path] of fields) excludePath(result, path.split('.'), 0);
    if (idEntry !== undefined && isFlag(idEntry[1]) && !flagValue(idEntry[1])) Reflect.deleteProperty(result, '_id');
  }
  for (const [path, value] of slices) applySlice(result, path, (value as Doc).$slice);
  return result;
}

/** $addFields / $set: computed fields merged into a copy of the document. */
export function addFields(doc: Doc, spec: Doc): Doc {
  const result = cloneValue(doc);
  for (const [path, value] of Object.entries(spec)) {
    const computed = evaluate(value, doc);
    if (computed !== undefined) setPath(result, path, computed);
  }
  return result;
}
