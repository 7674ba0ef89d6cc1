// Which field names and `_id` values may be stored, as mongod 5.0+ decides. Dollar-prefixed and
// dotted names are allowed in inserted documents, at any level; a replacement or an update operator
// may not create a top-level `$` field (a DBRef's `$ref`/`$id`/`$db` excepted); `_id` may not be an
// array or a regex, nor an object with a `$`-prefixed name at any depth.
import { CommandError } from '../errors.js';
import { isBsonRegExp, isDoc, type Doc } from '../values.js';

function idTypeName(id: unknown): string | undefined {
  if (Array.isArray(id)) return 'array';
  if (isBsonRegExp(id) || id instanceof RegExp) return 'regex';
  return undefined;
}

/** The first `$`-prefixed name inside a value that is not part of a DBRef, searched depth first. */
function dollarNameWithin(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = dollarNameWithin(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isDoc(value)) return undefined;
  const keys = Object.keys(value);
  const skip = dbRefLength(value, keys);
  for (const [index, key] of keys.entries()) {
    if (index >= skip && key.startsWith('$')) return key;
    const found = dollarNameWithin(value[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** How many leading fields form a DBRef (`$ref` string, `$id`, optional `$db` string), else 0. */
function dbRefLength(doc: Doc, keys: readonly string[]): number {
  if (keys[0] !== '$ref' || typeof doc.$ref !== 'string' || keys[1] !== '$id') return 0;
  return keys[2] === '$db' && typeof doc.$db === 'string' ? 3 : 2;
}

function replacementError(name: string, fullName: string): CommandError {
  return new CommandError(
    'DollarPrefixedFieldName',
    `The dollar ($) prefixed field '${name}' in '${fullName}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
  );
}

/** An inserted document: only its `_id` is restricted (mongod's storageValidIdField). */
export function validateInsertedDocument(doc: Doc): void {
  const id = doc._id;
  const badType = idTypeName(id);
  if (badType !== undefined) throw new CommandError('InvalidIdField', `The '_id' value cannot be of type ${badType}`);
  if (isDoc(id)) {
    const name = dollarNameWithin(id);
    if (name !== undefined) {
      throw new CommandError(
        'DollarPrefixedFieldName',
        `_id fields may not contain '$'-prefixed fields: ${name} is not valid for storage.`,
      );
    }
  }
}

/** A replacement document: no top-level `$` field outside a DBRef, none anywhere inside `_id`. */
export function validateReplacement(doc: Doc): void {
  const keys = Object.keys(doc);
  const skip = dbRefLength(doc, keys);
  for (const [index, key] of keys.entries()) {
    if (index >= skip && key.startsWith('$')) throw replacementError(key, key);
  }
  if (isDoc(doc._id)) {
    const name = dollarNameWithin(doc._id);
    if (name !== undefined) throw replacementError(name, `_id.${name}`);
  }
}

/** A field an update operator creates or sets: its top-level name may not start with `$`. */
export function validateUpdatedPath(path: string): void {
  const [top = ''] = path.split('.');
  if (top.startsWith('$')) throw replacementError(top, top);
}
