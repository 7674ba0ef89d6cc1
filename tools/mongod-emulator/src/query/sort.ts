// Sort specifications ({ a: 1, b: -1 }) compiled into a comparator. Like mongod, an array field sorts
// by its smallest element ascending and its largest descending, and a missing field sorts as null.
import { CommandError } from '../errors.js';
import { isArray, isDoc, numberOption, type Doc } from '../values.js';
import { compareValues } from './compare.js';
import { pathValues } from './path.js';

function sortKey(doc: Doc, parts: readonly string[], direction: number): unknown {
  const flat: unknown[] = [];
  for (const value of pathValues(doc, parts)) {
    if (isArray(value)) flat.push(...(value.length === 0 ? [undefined] : value));
    else flat.push(value);
  }
  let best: unknown = null;
  let first = true;
  for (const value of flat) {
    const candidate = value === undefined ? null : value;
    if (first || compareValues(candidate, best) * direction < 0) best = candidate;
    first = false;
  }
  return best;
}

/** Sorts documents (stable), computing each document's sort keys once. */
export function sortDocuments(docs: readonly Doc[], spec: unknown): Doc[] {
  if (!isDoc(spec) || Object.keys(spec).length === 0) return [...docs];
  const keys = Object.entries(spec).map(([path, value]) => {
    const direction = numberOption(value);
    if (direction !== 1 && direction !== -1)
      throw new CommandError('BadValue', '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    return { parts: path.split('.'), direction };
  });
  const decorated = docs.map((doc) => ({ doc, values: keys.map(({ parts, direction }) => sortKey(doc, parts, direction)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i += 1) {
      const order = compareValues(a.values[i], b.values[i]);
      if (order !== 0) return order * (keys[i]?.direction ?? 1);
    }
    return 0;
  });
  return decorated.map(({ doc }) => doc);
}
