// createIndexes, listIndexes and dropIndexes.
import { Int32 } from 'bson';
import { CommandError } from '../errors.js';
import { Index } from '../indexes.js';
import { canonicalKey } from '../query/compare.js';
import { isDoc, numberOption, type Doc } from '../values.js';
import { arrayArgument, collectionName, cursorReply, existingCollection, type CommandHandler } from './context.js';

const createIndexes: CommandHandler = (context) => {
  const specs = arrayArgument(context, 'indexes').map((raw) => {
    if (!isDoc(raw)) throw new CommandError('TypeMismatch', 'index specifications must be objects');
    return Index.fromCommand(raw);
  });
  const { collection, created } = context.store.ensureCollection(context.db, collectionName(context));
  const before = collection.indexes.size + 1;
  for (const spec of specs) {
    if (spec.name === '_id_' || canonicalKey(spec.key) === canonicalKey({ _id: 1 })) continue;
    const existing = collection.indexes.get(spec.name);
    if (existing) {
      if (canonicalKey(existing.spec.key) !== canonicalKey(spec.key)) {
        throw new CommandError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
        );
      }
      if (existing.spec.unique !== spec.unique || existing.spec.sparse !== spec.sparse) {
        throw new CommandError(
          'IndexOptionsConflict',
          `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`,
        );
      }
      continue;
    }
    const sameKey = [...collection.indexes.values()].find((index) => canonicalKey(index.spec.key) === canonicalKey(spec.key));
    if (sameKey) {
      throw new CommandError('IndexOptionsConflict', `Index already exists with a different name: ${sameKey.spec.name}`);
    }
    collection.createIndex(spec);
  }
  const after = collection.indexes.size + 1;
  return {
    numIndexesBefore: new Int32(before),
    numIndexesAfter: new Int32(after),
    ...(before === after ? { note: 'all indexes already exist' } : {}),
    createdCollectionAutomatically: created,
  };
};

const listIndexes: CommandHandler = (context) => {
  const collection = existingCollection(context);
  const ns = `${context.db}.${collectionName(context)}`;
  if (!collection) throw new CommandError('NamespaceNotFound', `ns does not exist: ${ns}`);
  const cursor = isDoc(context.command.cursor) ? context.command.cursor : {};
  return cursorReply(ns, 'firstBatch', context.cursors.start(ns, collection.indexSpecs(), numberOption(cursor.batchSize), false));
};

function indexNamesToDrop(target: unknown, indexes: ReadonlyMap<string, Index>): string[] {
  if (target === '*') return [...indexes.keys()];
  if (typeof target === 'string') return [target];
  if (Array.isArray(target)) return target.map(String);
  if (isDoc(target)) {
    const key = canonicalKey(target);
    if (key === canonicalKey({ _id: 1 })) return ['_id_'];
    const match = [...indexes.values()].find((index) => canonicalKey(index.spec.key) === key);
    if (!match) throw new CommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(target)}`);
    return [match.spec.name];
  }
  throw new CommandError('TypeMismatch', "BSON field 'dropIndexes.index' is the wrong type");
}

const dropIndexes: CommandHandler = (context) => {
  const collection = existingCollection(context);
  if (!collection) throw new CommandError('NamespaceNotFound', `ns not found ${context.db}.${collectionName(context)}`);
  const before = collection.indexes.size + 1;
  const names = indexNamesToDrop(context.command.index, collection.indexes);
  for (const name of names) {
    if (name === '_id_') throw new CommandError('InvalidOptions', 'cannot drop _id index');
    if (!collection.indexes.has(name)) throw new CommandError('IndexNotFound', `index not found with name [${name}]`);
  }
  for (const name of names) collection.dropIndex(name);
  const reply: Doc = { nIndexesWas: new Int32(before) };
  if (context.command.index === '*') reply.msg = 'non-_id indexes dropped for collection';
  return reply;
};

export const indexCommands: Record<string, CommandHandler> = { createIndexes, listIndexes, dropIndexes, deleteIndexes: dropIndexes };
