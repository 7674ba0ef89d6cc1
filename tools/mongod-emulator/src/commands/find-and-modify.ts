// findAndModify: one document updated or removed, returning it before or after the change.
// Unlike the batch write commands, failures (duplicate keys included) are command errors.
import { CommandError } from '../errors.js';
import { project } from '../query/project.js';
import { flagOption, isDoc, type Doc } from '../values.js';
import { collectionName, docArgument, type CommandHandler } from './context.js';
import { deleteDocuments, updateDocuments } from './write-ops.js';

function shape(doc: Doc | undefined, fields: Doc): Doc | null {
  if (!doc) return null;
  return Object.keys(fields).length > 0 ? project(doc, fields) : doc;
}

const findAndModify: CommandHandler = (context) => {
  const name = collectionName(context);
  const query = docArgument(context, 'query');
  const fields = docArgument(context, 'fields');
  const sort = isDoc(context.command.sort) ? context.command.sort : undefined;
  const remove = flagOption(context.command.remove);
  const update = context.command.update;
  if (remove && update !== undefined) throw new CommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (!remove && update === undefined) throw new CommandError('FailedToParse', 'Either an update or remove=true must be specified');
  if (remove) {
    const [removed] = deleteDocuments(context.store, context.db, name, query, 1, sort);
    return { lastErrorObject: { n: removed ? 1 : 0 }, value: shape(removed, fields) };
  }
  const returnNew = flagOption(context.command.new);
  const outcome = updateDocuments(context.store, context.db, name, {
    filter: query,
    update,
    upsert: flagOption(context.command.upsert),
    multi: false,
    sort,
  });
  const lastErrorObject: Doc = { n: outcome.matched + (outcome.upserted ? 1 : 0), updatedExisting: outcome.matched > 0 };
  if (outcome.upserted) lastErrorObject.upserted = outcome.upserted._id;
  return { lastErrorObject, value: shape(returnNew ? outcome.after : outcome.before, fields) };
};

export const findAndModifyCommands: Record<string, CommandHandler> = { findAndModify, findandmodify: findAndModify };
