// Database and collection management: listDatabases, listCollections, create, drop, dropDatabase.
import { Int32, Long } from 'bson';
import { compileFilter } from '../query/match.js';
import { flagOption, isDoc, numberOption, type Doc } from '../values.js';
import { collectionName, cursorReply, docArgument, type CommandHandler } from './context.js';

const listDatabases: CommandHandler = (context) => {
  const nameOnly = flagOption(context.command.nameOnly);
  const predicate = compileFilter(docArgument(context, 'filter'));
  const databases = context.store
    .databaseNames()
    .map((name): Doc => {
      const size = context.store.collections(name).reduce((total, collection) => total + collection.size, 0);
      return nameOnly ? { name } : { name, sizeOnDisk: Long.fromNumber(size * 64 + 4096), empty: false };
    })
    .filter(predicate);
  return nameOnly ? { databases } : { databases, totalSize: Long.fromNumber(databases.length * 4096), totalSizeMb: Long.fromNumber(0) };
};

const listCollections: CommandHandler = (context) => {
  const nameOnly = flagOption(context.command.nameOnly);
  const predicate = compileFilter(docArgument(context, 'filter'));
  const collections = context.store
    .collections(context.db)
    .map((collection): Doc =>
      nameOnly
        ? { name: collection.name, type: 'collection' }
        : {
            name: collection.name,
            type: 'collection',
            options: {},
            info: { readOnly: false, uuid: collection.uuid },
            idIndex: { v: new Int32(2), key: { _id: new Int32(1) }, name: '_id_' },
          },
    )
    .filter(predicate);
  const cursor = isDoc(context.command.cursor) ? context.command.cursor : {};
  const reply = context.cursors.start(`${context.db}.$cmd.listCollections`, collections, numberOption(cursor.batchSize), false);
  return cursorReply(`${context.db}.$cmd.listCollections`, 'firstBatch', reply);
};

const create: CommandHandler = (context) => {
  const name = collectionName(context);
  // mongod accepts `create` for an existing collection when the options are the same (none here:
  // the options the emulator does not implement are refused before this runs).
  context.store.ensureCollection(context.db, name);
  return {};
};

const drop: CommandHandler = (context) => {
  const name = collectionName(context);
  // Since MongoDB 7.0 dropping a missing collection succeeds.
  const dropped = context.store.dropCollection(context.db, name);
  return dropped ? { nIndexesWas: new Int32(dropped.indexes.size + 1), ns: dropped.ns } : {};
};

const dropDatabase: CommandHandler = (context) => {
  context.store.dropDatabase(context.db);
  return {};
};

export const namespaceCommands: Record<string, CommandHandler> = { listDatabases, listCollections, create, drop, dropDatabase };
