// Dotted field paths ("a.b.0.c"): reading them with MongoDB's implicit array traversal, and
// writing them for update operators (creating intermediate documents as mongod does).
import { CommandError } from '../errors.js';
import { isDoc, type Doc } from '../values.js';

const INDEX = /^\d+$/;

/**
 * Every value a path reaches. Arrays met on the way are traversed element by element (and a numeric
 * part also indexes into them); `undefined` stands for "missing". Leaf arrays are returned whole;
 * matchers look inside them themselves.
 */
export function pathValues(value: unknown, parts: readonly string[], from = 0): unknown[] {
  if (from === parts.length) return [value];
  const part = parts[from] ?? '';
  if (isDoc(value)) return pathValues(value[part], parts, from + 1);
  if (!Array.isArray(value)) return [undefined];
  const out: unknown[] = [];
  if (INDEX.test(part) && Number(part) < value.length) out.push(...pathValues(value[Number(part)], parts, from + 1));
  for (const element of value) {
    if (isDoc(element)) out.push(...pathValues(element, parts, from));
  }
  return out.length > 0 ? out : [undefined];
}

/** The single value at a path without array traversal (what $set or a projection sees). */
export function getPath(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (isDoc(current)) current = current[part];
    else if (Array.isArray(current) && INDEX.test(part)) current = current[Number(part)];
    else return undefined;
  }
  return current;
}

/** Sets a path inside `doc` (mutating it), creating missing intermediate documents. */
export function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let current: unknown = doc;
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] ?? '';
    const last = i === parts.length - 1;
    if (Array.isArray(current) && INDEX.test(part)) {
      const index = Number(part);
      while (current.length < index) current.push(null);
      if (last) current[index] = value;
      else {
        if (current[index] === undefined || current[index] === null) current[index] = {};
        current = current[index];
      }
    } else if (isDoc(current)) {
      if (last) current[part] = value;
      else {
        if (current[part] === undefined || current[part] === null) current[part] = {};
        current = current[part];
      }
    } else {
      throw new CommandError(
        'BadValue',
        `Cannot create field '${part}' in element {${parts.slice(0, i).join('.')}: ${JSON.stringify(current)}}`,
      );
    }
  }
}

/** Removes a path; array elements become null, as $unset does in mongod. */
export function unsetPath(doc: Doc, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  const parent = parts.length === 0 ? doc : getPath(doc, parts.join('.'));
  if (isDoc(parent)) Reflect.deleteProperty(parent, last);
  else if (Array.isArray(parent) && INDEX.test(last) && Number(last) < parent.length) parent[Number(last)] = null;
}
