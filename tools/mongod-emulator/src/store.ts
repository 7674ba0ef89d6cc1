// The in-memory data: databases holding collections, each a Map from the canonical key of `_id` to
// the stored document (insertion-ordered, which is the natural order mongod returns without a sort).
// Stored documents are never mutated in place: updates replace them, so cursors may hold references.
// Every change is also told, as a Change, to whoever keeps the data on disk (storage/durable-store.ts).
import { ObjectId, UUID } from 'bson';
import { CommandError } from './errors.js';
import { duplicateKeyError, Index, type IndexSpec } from './indexes.js';
import { canonicalKey } from './query/compare.js';
import { withIdFirst } from './query/update.js';
import { compileFilter } from './query/match.js';
import { isBsonRegExp, isDoc, type Doc } from './values.js';

/** The `_id` values a filter pins down by equality, or undefined when a scan is needed. */
function idLookup(condition: unknown): unknown[] | undefined {
  if (condition === undefined || condition === null || isBsonRegExp(condition) || condition instanceof RegExp || Array.isArray(condition))
    return undefined;
  if (!isDoc(condition)) return [condition];
  const keys = Object.keys(condition);
  if (keys.length === 1 && keys[0] === '$eq') return idLookup(condition.$eq);
  if (keys.length === 1 && keys[0] === '$in' && Array.isArray(condition.$in)) {
    const ids: unknown[] = condition.$in;
    return ids.every((id) => idLookup(id) !== undefined) ? ids : undefined;
  }
  return keys.some((key) => key.startsWith('$')) ? undefined : [condition];
}

const ID_INDEX: IndexSpec = { name: '_id_', key: { _id: 1 }, unique: true, sparse: false };

/** One change to the data, as the journal records it and replays it. */
export type Change =
  | { op: 'create'; db: string; coll: string }
  | { op: 'insert'; db: string; coll: string; doc: Doc }
  | { op: 'replace'; db: string; coll: string; doc: Doc }
  | { op: 'remove'; db: string; coll: string; id: unknown }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string }
  | { op: 'dropCollection'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string };

export type ChangeListener = (change: Change) => void;

export class Collection {
  readonly uuid = new UUID();
  readonly indexes = new Map<string, Index>();
  private readonly docs = new Map<string, Doc>();

  constructor(
    readonly db: string,
    readonly name: string,
    private readonly changed: ChangeListener,
  ) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get size(): number {
    return this.docs.size;
  }

  all(): Doc[] {
    return [...this.docs.values()];
  }

  findById(id: unknown): Doc | undefined {
    return this.docs.get(canonicalKey(id));
  }

  /** Documents matching a filter, in natural order; `_id` equality and `$in` use the hash map. */
  find(filter: Doc): Doc[] {
    const predicate = compileFilter(filter);
    const ids = idLookup(filter._id);
    const candidates: Iterable<Doc> =
      ids === undefined ? this.docs.values() : new Set(ids.map((id) => this.docs.get(canonicalKey(id))).filter((doc) => doc !== undefined));
    const out: Doc[] = [];
    for (const doc of candidates) if (predicate(doc)) out.push(doc);
    return out;
  }

  /** Gives the document an ObjectId `_id` if it has none (placed first), without storing it. */
  static prepare(doc: Doc): Doc {
    return doc._id === undefined ? { _id: new ObjectId(), ...doc } : withIdFirst(doc);
  }

  private checkUnique(doc: Doc, idKey: string): void {
    for (const index of this.indexes.values()) {
      const conflict = index.conflict(doc, idKey);
      if (conflict) throw duplicateKeyError(this.ns, index.spec, conflict);
    }
  }

  insert(doc: Doc): void {
    const idKey = canonicalKey(doc._id);
    if (this.docs.has(idKey)) throw duplicateKeyError(this.ns, ID_INDEX, { _id: doc._id });
    this.checkUnique(doc, idKey);
    this.docs.set(idKey, doc);
    for (const index of this.indexes.values()) index.add(doc, idKey);
    this.changed({ op: 'insert', db: this.db, coll: this.name, doc });
  }

  replace(previous: Doc, next: Doc): void {
    const idKey = canonicalKey(previous._id);
    this.checkUnique(next, idKey);
    for (const index of this.indexes.values()) index.remove(previous, idKey);
    for (const index of this.indexes.values()) index.add(next, idKey);
    this.docs.set(idKey, next);
    this.changed({ op: 'replace', db: this.db, coll: this.name, doc: next });
  }

  remove(doc: Doc): void {
    const idKey = canonicalKey(doc._id);
    for (const index of this.indexes.values()) index.remove(doc, idKey);
    this.docs.delete(idKey);
    this.changed({ op: 'remove', db: this.db, coll: this.name, id: doc._id });
  }

  /** Builds an index over the existing documents; a unique one fails on duplicates like mongod. */
  createIndex(spec: IndexSpec): void {
    const index = new Index(spec);
    for (const [idKey, doc] of this.docs) {
      const conflict = index.conflict(doc, idKey);
      if (conflict) {
        throw duplicateKeyError(
          this.ns,
          spec,
          conflict,
          `Index build failed: ${this.uuid.toHexString()}: Collection ${this.ns} ( ${this.uuid.toHexString()} ) :: caused by :: `,
        );
      }
      index.add(doc, idKey);
    }
    this.indexes.set(spec.name, index);
    this.changed({ op: 'createIndex', db: this.db, coll: this.name, spec });
  }

  dropIndex(name: string): void {
    if (this.indexes.delete(name)) this.changed({ op: 'dropIndex', db: this.db, coll: this.name, name });
  }

  /** The index specifications besides `_id_`, in creation order. */
  secondaryIndexSpecs(): IndexSpec[] {
    return [...this.indexes.values()].map((index) => index.spec);
  }

  indexSpecs(): Doc[] {
    return [{ v: 2, key: ID_INDEX.key, name: ID_INDEX.name }, ...[...this.indexes.values()].map((index) => index.describe())];
  }
}

function validateName(kind: 'database' | 'collection', name: string): void {
  const bad = kind === 'database' ? /[/\\. "$\0]/ : /[$\0]/;
  if (name === '' || bad.test(name) || (kind === 'collection' && name.startsWith('system.'))) {
    throw new CommandError('InvalidNamespace', `Invalid ${kind} name: '${name}'`);
  }
}

export class Store {
  private readonly databases = new Map<string, Map<string, Collection>>();
  /** Told every change once it is made in memory; unset, the data lives in memory only. */
  onChange: ChangeListener | undefined;
  private readonly changed: ChangeListener = (change) => {
    this.onChange?.(change);
  };

  collection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  /** The collection, created implicitly as mongod does on first write. */
  ensureCollection(db: string, name: string): { collection: Collection; created: boolean } {
    const existing = this.collection(db, name);
    if (existing) return { collection: existing, created: false };
    validateName('database', db);
    validateName('collection', name);
    let collections = this.databases.get(db);
    if (!collections) {
      collections = new Map();
      this.databases.set(db, collections);
    }
    const collection = new Collection(db, name, this.changed);
    collections.set(name, collection);
    this.changed({ op: 'create', db, coll: name });
    return { collection, created: true };
  }

  collections(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  dropCollection(db: string, name: string): Collection | undefined {
    const collections = this.databases.get(db);
    const collection = collections?.get(name);
    collections?.delete(name);
    if (collections?.size === 0) this.databases.delete(db);
    if (collection) this.changed({ op: 'dropCollection', db, coll: name });
    return collection;
  }

  dropDatabase(db: string): void {
    if (this.databases.delete(db)) this.changed({ op: 'dropDatabase', db });
  }

  databaseNames(): string[] {
    return [...this.databases.keys()];
  }
}
