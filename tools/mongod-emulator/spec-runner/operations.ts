// The entity operations of the CRUD spec tests, run through the official driver. Each returns the
// operation's result as the CRUD spec shapes it (e.g. `{ insertedId }`), and says whether it is an
// iterable of root-level documents (find, aggregate, listIndexes), which match with extra fields.
import type { AnyBulkWriteOperation, BulkWriteResult, ClientBulkWriteModel, Collection, Db, Document, MongoClient } from 'mongodb';
import { firstEntry, isPlainDocument, numericValue, UnsupportedByRunner } from './matching.js';

export interface OperationResult {
  value: unknown;
  /** An array of documents each matched as a root-level document. */
  rootArray?: boolean;
}

type Arguments = Document;
type CollectionOperation = (collection: Collection, args: Arguments) => Promise<OperationResult>;
type DatabaseOperation = (db: Db, args: Arguments) => Promise<OperationResult>;
type ClientOperation = (client: MongoClient, args: Arguments) => Promise<OperationResult>;

/** Arguments sent to the server as they are, so their exact BSON types (Int32, Long, Double...) matter. */
const DATA_ARGUMENTS = new Set(['document', 'documents', 'filter', 'update', 'replacement', 'pipeline', 'requests', 'models', 'command']);

/** Options with JS numbers where the file has BSON numbers: the driver reads `limit: 2`, not `limit: Int32(2)`. */
function toNative(value: unknown): unknown {
  const number = numericValue(value);
  if (number !== undefined) return typeof number === 'bigint' && Number.isSafeInteger(Number(number)) ? Number(number) : number;
  if (Array.isArray(value)) return value.map(toNative);
  if (isPlainDocument(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toNative(item)]));
  return value;
}

/** Entity options (uriOptions, collectionOptions...) as the driver reads them: `{ w: 0 }`, not `{ w: Int32(0) }`. */
export function nativeOptions(options: unknown): Document {
  return isPlainDocument(options) ? (toNative(options) as Document) : {};
}

/** Splits the named positional arguments from the rest, which the driver takes as options. */
function take(args: Arguments, ...names: string[]): [unknown[], Document] {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args) as [string, unknown][]) options[key] = DATA_ARGUMENTS.has(key) ? value : toNative(value);
  const values = names.map((name) => {
    const value = options[name];
    Reflect.deleteProperty(options, name);
    return value;
  });
  if (options.session !== undefined) throw new UnsupportedByRunner('session arguments');
  if (typeof options.returnDocument === 'string') options.returnDocument = options.returnDocument.toLowerCase();
  return [values, options];
}

function doc(value: unknown): Document {
  return isPlainDocument(value) ? value : {};
}

/** BulkWriteResult (from bulkWrite, or carried by an insertMany/bulkWrite error) as the spec shapes it. */
export function bulkWriteResult(result: BulkWriteResult): Document {
  return {
    deletedCount: result.deletedCount,
    insertedCount: result.insertedCount,
    insertedIds: result.insertedIds,
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    upsertedCount: result.upsertedCount,
    upsertedIds: result.upsertedIds,
  };
}

function updateResult(result: { matchedCount: number; modifiedCount: number; upsertedCount: number; upsertedId: unknown }): Document {
  const shaped: Document = { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedCount: result.upsertedCount };
  if (result.upsertedId !== null && result.upsertedId !== undefined) shaped.upsertedId = result.upsertedId;
  return shaped;
}

const single = (value: unknown): OperationResult => ({ value });
const documents = (value: unknown[]): OperationResult => ({ value, rootArray: true });

/** An update document or an update pipeline. */
function updateArgument(value: unknown): Document | Document[] {
  return Array.isArray(value) ? value.map(doc) : doc(value);
}

async function remove(collection: Collection, method: 'deleteOne' | 'deleteMany', args: Arguments): Promise<OperationResult> {
  const [[filter], options] = take(args, 'filter');
  const { deletedCount } = await collection[method](doc(filter), options);
  return single({ deletedCount });
}

async function update(collection: Collection, method: 'updateOne' | 'updateMany', args: Arguments): Promise<OperationResult> {
  const [[filter, changes], options] = take(args, 'filter', 'update');
  return single(updateResult(await collection[method](doc(filter), updateArgument(changes), options)));
}

const collectionOperations: Record<string, CollectionOperation> = {
  insertOne: async (collection, args) => {
    const [[document], options] = take(args, 'document');
    const { insertedId } = await collection.insertOne(doc(document), options);
    return single({ insertedId });
  },
  insertMany: async (collection, args) => {
    const [[list], options] = take(args, 'documents');
    const { insertedIds } = await collection.insertMany(Array.isArray(list) ? list.map(doc) : [], options);
    return single({ insertedIds });
  },
  deleteOne: (collection, args) => remove(collection, 'deleteOne', args),
  deleteMany: (collection, args) => remove(collection, 'deleteMany', args),
  updateOne: (collection, args) => update(collection, 'updateOne', args),
  updateMany: (collection, args) => update(collection, 'updateMany', args),
  replaceOne: async (collection, args) => {
    const [[filter, replacement], options] = take(args, 'filter', 'replacement');
    return single(updateResult(await collection.replaceOne(doc(filter), doc(replacement), options)));
  },
  findOneAndUpdate: async (collection, args) => {
    const [[filter, update], options] = take(args, 'filter', 'update');
    return single(await collection.findOneAndUpdate(doc(filter), updateArgument(update), options));
  },
  findOneAndReplace: async (collection, args) => {
    const [[filter, replacement], options] = take(args, 'filter', 'replacement');
    return single(await collection.findOneAndReplace(doc(filter), doc(replacement), options));
  },
  findOneAndDelete: async (collection, args) => {
    const [[filter], options] = take(args, 'filter');
    return single(await collection.findOneAndDelete(doc(filter), options));
  },
  find: async (collection, args) => {
    const [[filter], options] = take(args, 'filter');
    return documents(await collection.find(doc(filter), options).toArray());
  },
  findOne: async (collection, args) => {
    const [[filter], options] = take(args, 'filter');
    return single(await collection.findOne(doc(filter), options));
  },
  aggregate: async (collection, args) => {
    const [[pipeline], options] = take(args, 'pipeline');
    return documents(await collection.aggregate(Array.isArray(pipeline) ? pipeline.map(doc) : [], options).toArray());
  },
  countDocuments: async (collection, args) => {
    const [[filter], options] = take(args, 'filter');
    return single(await collection.countDocuments(doc(filter), options));
  },
  estimatedDocumentCount: async (collection, args) => single(await collection.estimatedDocumentCount(take(args)[1])),
  count: async (collection, args) => {
    const [[filter], options] = take(args, 'filter');
    // The CRUD spec's deprecated count operation, which the driver keeps for it.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    return single(await collection.count(doc(filter), options));
  },
  distinct: async (collection, args) => {
    const [[fieldName, filter], options] = take(args, 'fieldName', 'filter');
    return single(await collection.distinct(String(fieldName), doc(filter), options));
  },
  bulkWrite: async (collection, args) => {
    const [[requests], options] = take(args, 'requests');
    const models = (Array.isArray(requests) ? requests : []) as AnyBulkWriteOperation[];
    return single(bulkWriteResult(await collection.bulkWrite(models, options)));
  },
  createIndex: async (collection, args) => {
    const [[keys], options] = take(args, 'keys');
    return single(await collection.createIndex(doc(keys), options, undefined));
  },
  listIndexes: async (collection, args) => documents(await collection.listIndexes(take(args)[1]).toArray()),
  dropIndex: async (collection, args) => {
    const [[name], options] = take(args, 'name');
    return single(await collection.dropIndex(String(name), options));
  },
};

const databaseOperations: Record<string, DatabaseOperation> = {
  createCollection: async (db, args) => {
    const [[name], options] = take(args, 'collection');
    await db.createCollection(String(name), options);
    return single(undefined);
  },
  dropCollection: async (db, args) => {
    const [[name], options] = take(args, 'collection');
    return single(await db.dropCollection(String(name), options));
  },
  runCommand: async (db, args) => {
    const [[command], options] = take(args, 'command', 'commandName');
    return single(await db.command(doc(command), options));
  },
  // No driver helper: collMod sent as a command, as the spec describes the operation.
  modifyCollection: async (db, args) => {
    const [[name], options] = take(args, 'collection');
    return single(await db.command({ collMod: name, ...options }));
  },
};

/** The spec's `{ insertOne: { namespace, document } }` models in the driver's `{ name, namespace, ... }` form. */
function clientModels(models: unknown): ClientBulkWriteModel[] {
  return (Array.isArray(models) ? models : []).map((model) => {
    const [name, fields] = firstEntry(model);
    return { name, ...doc(fields) } as unknown as ClientBulkWriteModel;
  });
}

const clientOperations: Record<string, ClientOperation> = {
  clientBulkWrite: async (client, args) => {
    const [[models], options] = take(args, 'models');
    return single(await client.bulkWrite(clientModels(models), options));
  },
};

export type Entity =
  { kind: 'client'; client: MongoClient } | { kind: 'database'; db: Db } | { kind: 'collection'; collection: Collection };

export function runEntityOperation(entity: Entity, name: string, args: Arguments): Promise<OperationResult> {
  if (entity.kind === 'collection') {
    const operation = collectionOperations[name];
    if (operation) return operation(entity.collection, args);
  } else if (entity.kind === 'database') {
    const operation = databaseOperations[name];
    if (operation) return operation(entity.db, args);
  } else {
    const operation = clientOperations[name];
    if (operation) return operation(entity.client, args);
  }
  throw new UnsupportedByRunner(`the ${entity.kind} operation ${name}`);
}
