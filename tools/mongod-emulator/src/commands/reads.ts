// Read commands: find (+ getMore/killCursors), count, distinct and aggregate.
import { Int32, Long } from 'bson';
import { CommandError, notImplemented } from '../errors.js';
import { runPipeline } from '../query/aggregate.js';
import { canonicalKey } from '../query/compare.js';
import { pathValues } from '../query/path.js';
import { project } from '../query/project.js';
import { sortDocuments } from '../query/sort.js';
import { flagOption, isDoc, isLong, numberOption } from '../values.js';
import {
  arrayArgument,
  collectionName,
  cursorReply,
  docArgument,
  existingCollection,
  type CommandContext,
  type CommandHandler,
} from './context.js';

function nonNegative(context: CommandContext, field: string): number | undefined {
  const value = numberOption(context.command[field]);
  if (value !== undefined && value < 0)
    throw CommandError.location(51024, `BSON field '${field}' value must be >= 0, actual value '${value}'`);
  return value;
}

const find: CommandHandler = (context) => {
  const ns = `${context.db}.${collectionName(context)}`;
  const filter = docArgument(context, 'filter');
  const projection = docArgument(context, 'projection');
  const skip = nonNegative(context, 'skip') ?? 0;
  const limit = nonNegative(context, 'limit') ?? 0;
  const batchSize = nonNegative(context, 'batchSize');
  let docs = existingCollection(context)?.find(filter) ?? [];
  docs = sortDocuments(docs, context.command.sort);
  docs = docs.slice(skip, limit > 0 ? skip + limit : undefined);
  if (Object.keys(projection).length > 0) docs = docs.map((doc) => project(doc, projection));
  const reply = context.cursors.start(ns, docs, batchSize, flagOption(context.command.singleBatch));
  return cursorReply(ns, 'firstBatch', reply);
};

const getMore: CommandHandler = (context) => {
  const id = context.command.getMore;
  if (!isLong(id)) throw new CommandError('TypeMismatch', "Field 'getMore' must be of type long in: getMore");
  const collection = context.command.collection;
  if (typeof collection !== 'string') throw new CommandError('TypeMismatch', "Field 'collection' must be of type string in: getMore");
  const ns = `${context.db}.${collection}`;
  const reply = context.cursors.getMore(id.toBigInt(), ns, numberOption(context.command.batchSize));
  return cursorReply(ns, 'nextBatch', reply);
};

const killCursors: CommandHandler = (context) => {
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const id of arrayArgument(context, 'cursors')) {
    if (!isLong(id)) continue;
    (context.cursors.kill(id.toBigInt()) ? killed : notFound).push(id);
  }
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [] };
};

const count: CommandHandler = (context) => {
  const matches = existingCollection(context)?.find(docArgument(context, 'query')) ?? [];
  const skip = numberOption(context.command.skip) ?? 0;
  const limit = Math.abs(numberOption(context.command.limit) ?? 0);
  const n = Math.max(0, matches.length - skip);
  return { n: new Int32(limit > 0 ? Math.min(n, limit) : n) };
};

const distinct: CommandHandler = (context) => {
  const key = context.command.key;
  if (typeof key !== 'string') throw new CommandError('TypeMismatch', "BSON field 'distinct.key' is missing but a required field");
  const parts = key.split('.');
  const values = new Map<string, unknown>();
  for (const doc of existingCollection(context)?.find(docArgument(context, 'query')) ?? []) {
    for (const value of pathValues(doc, parts)) {
      // Arrays contribute their elements, as mongod's distinct does.
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) values.set(canonicalKey(item), item);
    }
  }
  return { values: [...values.values()] };
};

const aggregate: CommandHandler = (context) => {
  const target = context.command.aggregate;
  if (typeof target !== 'string') throw notImplemented('database-level aggregate ({aggregate: 1})');
  const pipeline = arrayArgument(context, 'pipeline');
  const cursorOptions = context.command.cursor;
  if (!isDoc(cursorOptions) && context.command.explain === undefined) {
    throw new CommandError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const ns = `${context.db}.${target}`;
  const source = context.store.collection(context.db, target)?.all() ?? [];
  const docs = runPipeline(source, pipeline, (name) => context.store.collection(context.db, name)?.all() ?? []);
  const reply = context.cursors.start(ns, docs, isDoc(cursorOptions) ? numberOption(cursorOptions.batchSize) : undefined, false);
  return cursorReply(ns, 'firstBatch', reply);
};

export const readCommands: Record<string, CommandHandler> = { find, getMore, killCursors, count, distinct, aggregate };
