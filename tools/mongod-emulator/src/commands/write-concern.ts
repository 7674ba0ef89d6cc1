// The writeConcern a command carries, checked as a standalone mongod checks it before running the
// command: a malformed one fails to parse (9), commands that never write refuse one (72), and what
// only a replica set can honour (`w` above 1, a tag name) is refused with BadValue (2). Everything a
// standalone accepts (`w: 0`, `w: 1`, `w: "majority"`, `j`, `wtimeout`) needs no further work here:
// writes are applied and in memory before the reply leaves.
import { CommandError, notImplemented } from '../errors.js';
import { isDoc, isNumeric, numberOption, type Doc } from '../values.js';

/** Replica sets have at most 50 members, so mongod refuses a larger `w` while parsing. */
const MAX_MEMBERS = 50;

/** Read-only commands mongod refuses a writeConcern on (InvalidOptions), whatever its value. */
const REFUSING_WRITE_CONCERN = new Set(['find', 'getMore', 'count', 'distinct']);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isDoc(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function parseW(w: unknown): void {
  if (w === undefined || w === null || typeof w === 'string') return;
  if (isNumeric(w)) {
    const value = numberOption(w) ?? Number(String(w));
    if (Number.isNaN(value)) throw new CommandError('FailedToParse', 'w cannot be NaN');
    const count = Math.trunc(value);
    if (count < 0 || count > MAX_MEMBERS) {
      throw new CommandError('FailedToParse', `w has to be a non-negative number and not greater than ${MAX_MEMBERS}; found: ${count}`);
    }
    return;
  }
  if (isDoc(w)) throw notImplemented('a write concern whose w is a tag set document');
  throw new CommandError('FailedToParse', `w has to be a number, string, or object; found: ${typeName(w)}`);
}

function parseWtimeout(wtimeout: unknown): void {
  if (wtimeout === undefined) return;
  const value = numberOption(wtimeout) ?? 0;
  if (value > 2 ** 31 - 1) throw new CommandError('FailedToParse', 'wtimeout must be a 32-bit integer');
}

/** What a standalone cannot honour: mongod's validateWriteConcern when the host is not a replica set member. */
function standaloneRefusal(w: unknown): CommandError | undefined {
  if (isNumeric(w) && Math.trunc(numberOption(w) ?? Number(String(w))) > 1)
    return new CommandError('BadValue', "cannot use 'w' > 1 when a host is not replicated");
  if (typeof w === 'string' && w !== 'majority') {
    return new CommandError('BadValue', `cannot use non-majority 'w' mode "${w}" when a host is not a member of a replica set`);
  }
  return undefined;
}

/** Throws the error mongod answers for the command's writeConcern, if any; returns quietly otherwise. */
export function checkWriteConcern(name: string, command: Doc): void {
  const writeConcern = command.writeConcern;
  if (writeConcern === undefined) return;
  if (!isDoc(writeConcern)) {
    throw new CommandError(
      'TypeMismatch',
      `BSON field '${name}.writeConcern' is the wrong type '${typeName(writeConcern)}', expected type 'object'`,
    );
  }
  parseW(writeConcern.w);
  parseWtimeout(writeConcern.wtimeout);
  if (REFUSING_WRITE_CONCERN.has(name)) throw new CommandError('InvalidOptions', 'Command does not support writeConcern');
  const refusal = standaloneRefusal(writeConcern.w);
  if (refusal) throw refusal;
}
