// mongod's error codes and the error type command handlers throw; the dispatcher turns it into an
// `{ ok: 0, errmsg, code, codeName }` reply exactly as mongod shapes it.
import type { Doc } from './values.js';

export const ErrorCodes = {
  BadValue: 2,
  UnknownError: 8,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  InvalidPipelineOperator: 168,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NotImplemented: 238,
  DuplicateKey: 11000,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra reply fields mongod adds for some errors (keyPattern/keyValue for duplicate keys). */
  readonly extra: Doc;

  constructor(codeName: ErrorCodeName, message: string, extra: Doc = {}) {
    super(message);
    this.code = ErrorCodes[codeName];
    this.codeName = codeName;
    this.extra = extra;
  }

  /** An error with any code, named as mongod names it (a code it has no name for reads `Location<code>`). */
  static withCode(code: number, message: string): CommandError {
    const name = (Object.keys(ErrorCodes) as ErrorCodeName[]).find((key) => ErrorCodes[key] === code);
    return name === undefined ? CommandError.location(code, message) : new CommandError(name, message);
  }

  /** For errors mongod reports with a bare location code (e.g. unknown pipeline stage 40324). */
  static location(code: number, message: string): CommandError {
    const error = new CommandError('BadValue', message);
    Object.assign(error, { code, codeName: `Location${code}` });
    return error;
  }

  toReply(): Doc {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }
}

export function badValue(message: string): CommandError {
  return new CommandError('BadValue', message);
}

/** The marker every refusal of an unimplemented feature carries, so callers (and the spec runner) can tell them apart. */
export const NOT_IMPLEMENTED_PREFIX = 'the emulator does not implement';

/** A feature mongod has and the emulator refuses rather than answer differently (NotImplemented, 238). */
export function notImplemented(feature: string): CommandError {
  return new CommandError('NotImplemented', `${NOT_IMPLEMENTED_PREFIX} ${feature}`);
}
