// The single-statement write operations shared by the insert/update/delete commands and
// findAndModify: they apply one statement to a collection and report what happened.
import { CommandError } from '../errors.js';
import { runPipeline } from '../query/aggregate.js';
import { sortDocuments } from '../query/sort.js';
import { validateInsertedDocument } from '../query/field-names.js';
import { applyUpdate, isOperatorUpdate, upsertSeed, type PipelineRunner } from '../query/update.js';
import { Collection, type Store } from '../store.js';
import { isDoc, type Doc } from '../values.js';

export interface UpdateStatement {
  filter: Doc;
  update: unknown;
  upsert: boolean;
  multi: boolean;
  sort?: unknown;
}

export interface UpdateOutcome {
  matched: number;
  modified: number;
  upserted?: Doc;
  /** The first affected document before and after the update (for findAndModify). */
  before?: Doc;
  after?: Doc;
}

function pipelineRunner(store: Store, db: string): PipelineRunner {
  return (doc, pipeline) => {
    const [result] = runPipeline([doc], pipeline, (name) => store.collection(db, name)?.all() ?? []);
    if (!result) throw new CommandError('BadValue', 'pipeline update removed the document');
    return result;
  };
}

export function insertDocument(store: Store, db: string, name: string, raw: unknown): Doc {
  if (!isDoc(raw)) throw new CommandError('TypeMismatch', 'documents to insert must be objects');
  const doc = Collection.prepare(raw);
  validateInsertedDocument(doc);
  store.ensureCollection(db, name).collection.insert(doc);
  return doc;
}

export function updateDocuments(store: Store, db: string, name: string, statement: UpdateStatement): UpdateOutcome {
  const { filter, update, upsert, multi } = statement;
  if (multi && isDoc(update) && !isOperatorUpdate(update)) {
    throw new CommandError('FailedToParse', 'multi update is not supported for replacement-style update');
  }
  const runner = pipelineRunner(store, db);
  const collection = store.collection(db, name);
  let matches = collection ? collection.find(filter) : [];
  if (statement.sort !== undefined) matches = sortDocuments(matches, statement.sort);
  if (!multi) matches = matches.slice(0, 1);
  if (collection && matches.length > 0) {
    const outcome: UpdateOutcome = { matched: 0, modified: 0 };
    for (const previous of matches) {
      const { doc, modified } = applyUpdate(previous, update, false, runner);
      if (modified) collection.replace(previous, doc);
      outcome.matched += 1;
      outcome.modified += modified ? 1 : 0;
      if (outcome.before === undefined) {
        outcome.before = previous;
        outcome.after = doc;
      }
    }
    return outcome;
  }
  if (!upsert) return { matched: 0, modified: 0 };
  const seed = upsertSeed(filter);
  const { doc } = applyUpdate(seed, update, true, runner);
  const inserted = insertDocument(store, db, name, doc);
  return { matched: 0, modified: 0, upserted: inserted, after: inserted };
}

export function deleteDocuments(store: Store, db: string, name: string, filter: Doc, limit: number, sort?: unknown): Doc[] {
  const collection = store.collection(db, name);
  if (!collection) return [];
  let matches = collection.find(filter);
  if (sort !== undefined) matches = sortDocuments(matches, sort);
  if (limit > 0) matches = matches.slice(0, limit);
  for (const doc of matches) collection.remove(doc);
  return matches;
}
