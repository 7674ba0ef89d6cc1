// The insert, update and delete commands. Per-statement failures are reported the way mongod does,
// as `writeErrors` inside an ok:1 reply; ordered batches stop at the first failure.
import { Int32 } from 'bson';
import { CommandError } from '../errors.js';
import { flagOption, isDoc, numberOption, type Doc } from '../values.js';
import { arrayArgument, collectionName, type CommandContext, type CommandHandler } from './context.js';
import { deleteDocuments, insertDocument, updateDocuments } from './write-ops.js';

interface BatchResult {
  writeErrors: Doc[];
}

/** Runs each statement, collecting CommandErrors as writeErrors; other errors propagate. */
function runBatch(context: CommandContext, statements: readonly unknown[], run: (statement: unknown, index: number) => void): BatchResult {
  const ordered = context.command.ordered === undefined ? true : flagOption(context.command.ordered);
  const writeErrors: Doc[] = [];
  for (const [index, statement] of statements.entries()) {
    try {
      run(statement, index);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      writeErrors.push({ index: new Int32(index), code: new Int32(error.code), errmsg: error.message, ...error.extra });
      if (ordered) break;
    }
  }
  return { writeErrors };
}

function withErrors(reply: Doc, { writeErrors }: BatchResult): Doc {
  return writeErrors.length > 0 ? { ...reply, writeErrors } : reply;
}

function statementDoc(statement: unknown, what: string): Doc {
  if (!isDoc(statement)) throw new CommandError('TypeMismatch', `${what} statements must be objects`);
  return statement;
}

const insert: CommandHandler = (context) => {
  const name = collectionName(context);
  const documents = arrayArgument(context, 'documents');
  let n = 0;
  const result = runBatch(context, documents, (doc) => {
    insertDocument(context.store, context.db, name, doc);
    n += 1;
  });
  return withErrors({ n: new Int32(n) }, result);
};

/** The `sort` of an update statement (MongoDB 8.0), which picks the one document a non-multi update changes. */
function statementSort(statement: unknown): Doc | undefined {
  if (!isDoc(statement) || statement.sort === undefined) return undefined;
  if (!isDoc(statement.sort))
    throw new CommandError('TypeMismatch', "BSON field 'update.updates.sort' is the wrong type, expected type 'object'");
  if (flagOption(statement.multi)) throw new CommandError('FailedToParse', 'Cannot specify sort with multi=true');
  return statement.sort;
}

const update: CommandHandler = (context) => {
  const name = collectionName(context);
  let n = 0;
  let nModified = 0;
  const upserted: Doc[] = [];
  const statements = arrayArgument(context, 'updates');
  // Checked for every statement before any runs: a command error, not a per-statement write error.
  const sorts = statements.map(statementSort);
  const result = runBatch(context, statements, (raw, index) => {
    const statement = statementDoc(raw, 'update');
    const outcome = updateDocuments(context.store, context.db, name, {
      filter: isDoc(statement.q) ? statement.q : {},
      update: statement.u,
      upsert: flagOption(statement.upsert),
      multi: flagOption(statement.multi),
      sort: sorts[index],
    });
    n += outcome.matched + (outcome.upserted ? 1 : 0);
    nModified += outcome.modified;
    if (outcome.upserted) upserted.push({ index: new Int32(index), _id: outcome.upserted._id });
  });
  return withErrors({ n: new Int32(n), nModified: new Int32(nModified), ...(upserted.length > 0 ? { upserted } : {}) }, result);
};

const remove: CommandHandler = (context) => {
  const name = collectionName(context);
  let n = 0;
  const result = runBatch(context, arrayArgument(context, 'deletes'), (raw) => {
    const statement = statementDoc(raw, 'delete');
    const limit = numberOption(statement.limit) ?? 0;
    if (limit !== 0 && limit !== 1)
      throw new CommandError('FailedToParse', `The limit field in delete objects must be 0 or 1. Got ${limit}`);
    n += deleteDocuments(context.store, context.db, name, isDoc(statement.q) ? statement.q : {}, limit).length;
  });
  return withErrors({ n: new Int32(n) }, result);
};

export const writeCommands: Record<string, CommandHandler> = { insert, update, delete: remove };
