// Options and commands mongod has that the emulator does not implement. Each is refused with an
// error naming it (NotImplemented, 238) before anything runs, rather than ignored: an ignored
// collation, hint or `let` would answer a different result from mongod's with no sign of it.
// Options that cannot change a result here are accepted: `comment` (mongod only logs it),
// `maxTimeMS` (commands finish at once), `allowDiskUse`, `noCursorTimeout` (cursors never time out)
// and `bypassDocumentValidation` (no collection has a validator: `create` refuses one).
import { notImplemented } from '../errors.js';
import { isDoc, type Doc } from '../values.js';

/** Command-level options refused, by command name. */
const REFUSED_OPTIONS: Record<string, readonly string[]> = {
  find: ['collation', 'hint', 'let', 'min', 'max', 'returnKey', 'showRecordId', 'tailable', 'awaitData'],
  aggregate: ['collation', 'hint', 'let', 'explain'],
  count: ['collation', 'hint'],
  distinct: ['collation', 'hint'],
  update: ['let'],
  delete: ['let'],
  findAndModify: ['collation', 'arrayFilters', 'hint', 'let'],
  findandmodify: ['collation', 'arrayFilters', 'hint', 'let'],
  create: [
    'capped',
    'size',
    'max',
    'timeseries',
    'expireAfterSeconds',
    'viewOn',
    'pipeline',
    'clusteredIndex',
    'validator',
    'validationLevel',
    'validationAction',
    'collation',
    'changeStreamPreAndPostImages',
    'encryptedFields',
    'storageEngine',
    'indexOptionDefaults',
  ],
};

/** Options refused inside each statement of a batch write, by command name and statement array. */
const REFUSED_STATEMENT_OPTIONS: Record<string, { field: string; options: readonly string[] }> = {
  update: { field: 'updates', options: ['collation', 'arrayFilters', 'hint', 'c'] },
  delete: { field: 'deletes', options: ['collation', 'hint'] },
};

/** Commands of mongod 8.0 a driver may send that the emulator lacks; others answer CommandNotFound. */
const REFUSED_COMMANDS = new Set(['bulkWrite', 'collMod', 'explain', 'renameCollection', 'mapReduce', 'dbStats', 'collStats', 'validate']);

/** Read concern levels a standalone serves from the same in-memory data the emulator holds. */
const READ_CONCERN_LEVELS = new Set(['local', 'available', 'majority']);

function refuseReadConcern(command: Doc): void {
  const readConcern = command.readConcern;
  if (!isDoc(readConcern)) return;
  const level = readConcern.level;
  if (level !== undefined && (typeof level !== 'string' || !READ_CONCERN_LEVELS.has(level)))
    throw notImplemented(`read concern level ${JSON.stringify(level)}`);
  for (const field of ['afterClusterTime', 'atClusterTime', 'afterOpTime']) {
    if (readConcern[field] !== undefined) throw notImplemented(`the read concern option '${field}'`);
  }
}

/** Whether the emulator refuses this command name outright (one mongod 8.0 has). */
export function isRefusedCommand(name: string): boolean {
  return REFUSED_COMMANDS.has(name);
}

/** Throws NotImplemented for the first option of the command the emulator does not implement. */
export function refuseUnsupported(name: string, command: Doc): void {
  for (const option of REFUSED_OPTIONS[name] ?? []) {
    if (command[option] !== undefined) throw notImplemented(`the '${option}' option of ${name}`);
  }
  const statements = REFUSED_STATEMENT_OPTIONS[name];
  const list = statements ? command[statements.field] : undefined;
  if (statements && Array.isArray(list)) {
    for (const statement of list) {
      if (!isDoc(statement)) continue;
      for (const option of statements.options) {
        if (statement[option] !== undefined) throw notImplemented(`the '${option}' option of ${name} statements`);
      }
    }
  }
  refuseReadConcern(command);
}
