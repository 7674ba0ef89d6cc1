// Secondary indexes. Unique ones keep a hash map from the canonical key of the indexed values to the
// owning document's _id key, so uniqueness checks cost O(1) instead of a collection scan.
import { CommandError, notImplemented } from './errors.js';
import { canonicalKey } from './query/compare.js';
import { pathValues } from './query/path.js';
import { bsonTag, flagOption, isDecimal, isDoc, isDouble, isInt32, isLong, isObjectId, numberOption, type Doc } from './values.js';

export interface IndexSpec {
  name: string;
  key: Doc;
  unique: boolean;
  sparse: boolean;
}

/**
 * Index options the emulator honours (`background` and `v` change nothing a client can see). Others
 * (partial, TTL, collation, hidden, text or geo settings) would make mongod answer differently, so
 * they are refused.
 */
const IMPLEMENTED_OPTIONS = new Set(['key', 'name', 'unique', 'sparse', 'background', 'v', 'ns']);

interface IndexKey {
  hash: string;
  value: Doc;
}

/** Renders a value the way mongod prints it in a duplicate key message. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isDouble(value)) return Number.isInteger(value.value) ? value.value.toFixed(1) : String(value.value);
  if (isLong(value)) return value.toString();
  if (isDecimal(value)) return `NumberDecimal("${value.toString()}")`;
  if (isObjectId(value)) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[ ${value.map(formatValue).join(', ')} ]`;
  if (isDoc(value)) return formatDoc(value);
  if (isInt32(value)) return String(value.value);
  return `${bsonTag(value) ?? typeof value}(${JSON.stringify(value)})`;
}

export function formatDoc(doc: Doc): string {
  const entries = Object.entries(doc);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([key, value]) => `${key}: ${formatValue(value)}`).join(', ')} }`;
}

export function duplicateKeyError(ns: string, spec: IndexSpec, keyValue: Doc, prefix = ''): CommandError {
  return new CommandError(
    'DuplicateKey',
    `${prefix}E11000 duplicate key error collection: ${ns} index: ${spec.name} dup key: ${formatDoc(keyValue)}`,
    { keyPattern: spec.key, keyValue },
  );
}

export function defaultIndexName(key: Doc): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${typeof direction === 'string' ? direction : String(numberOption(direction))}`)
    .join('_');
}

export class Index {
  readonly spec: IndexSpec;
  private readonly fields: { name: string; parts: string[] }[];
  private readonly owners = new Map<string, string>();

  constructor(spec: IndexSpec) {
    this.spec = spec;
    this.fields = Object.keys(spec.key).map((name) => ({ name, parts: name.split('.') }));
  }

  static fromCommand(raw: Doc): IndexSpec {
    if (!isDoc(raw.key) || Object.keys(raw.key).length === 0)
      throw new CommandError('BadValue', 'Error in specification: the key field must be a non-empty object');
    const option = Object.keys(raw).find((field) => !IMPLEMENTED_OPTIONS.has(field));
    if (option !== undefined) throw notImplemented(`the '${option}' index option`);
    const special = Object.values(raw.key).find((direction) => typeof direction === 'string');
    if (typeof special === 'string') throw notImplemented(`'${special}' indexes`);
    return {
      name: typeof raw.name === 'string' ? raw.name : defaultIndexName(raw.key),
      key: raw.key,
      unique: flagOption(raw.unique),
      sparse: flagOption(raw.sparse),
    };
  }

  /** Every key a document produces; an array field yields one key per element (multikey). */
  keysOf(doc: Doc): IndexKey[] {
    let combos: { values: unknown[]; present: boolean }[] = [{ values: [], present: false }];
    for (const { parts } of this.fields) {
      const reached = pathValues(doc, parts).flatMap((value): unknown[] => (Array.isArray(value) && value.length > 0 ? value : [value]));
      combos = combos.flatMap((combo) =>
        reached.map((value) => ({
          values: [...combo.values, value === undefined ? null : value],
          present: combo.present || value !== undefined,
        })),
      );
    }
    const keys = new Map<string, IndexKey>();
    for (const { values, present } of combos) {
      if (this.spec.sparse && !present) continue;
      const value: Doc = {};
      this.fields.forEach(({ name }, i) => (value[name] = values[i]));
      const hash = values.map((item) => canonicalKey(item)).join('|');
      keys.set(hash, { hash, value });
    }
    return [...keys.values()];
  }

  /** The first key of `doc` already owned by another document, if any. */
  conflict(doc: Doc, idKey: string): Doc | undefined {
    if (!this.spec.unique) return undefined;
    for (const key of this.keysOf(doc)) {
      const owner = this.owners.get(key.hash);
      if (owner !== undefined && owner !== idKey) return key.value;
    }
    return undefined;
  }

  add(doc: Doc, idKey: string): void {
    if (!this.spec.unique) return;
    for (const key of this.keysOf(doc)) this.owners.set(key.hash, idKey);
  }

  remove(doc: Doc, idKey: string): void {
    if (!this.spec.unique) return;
    for (const key of this.keysOf(doc)) if (this.owners.get(key.hash) === idKey) this.owners.delete(key.hash);
  }

  describe(): Doc {
    return {
      v: 2,
      key: this.spec.key,
      name: this.spec.name,
      ...(this.spec.unique ? { unique: true } : {}),
      ...(this.spec.sparse ? { sparse: true } : {}),
    };
  }
}
