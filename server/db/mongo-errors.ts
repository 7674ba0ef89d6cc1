import {
  MongoClientClosedError,
  MongoError,
  MongoExpiredSessionError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { MongoDeadlineError } from './operation-deadlines.js';

/** "Cannot take the operation now", not "the operation is wrong": on a standalone the driver adds no retryable label. */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  43, // CursorNotFound: the server dropped the cursor (restarted, or killed it when the deadline passed)
  7, // HostNotFound
  64, // WriteConcernFailed (wtimeout)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** The driver passes some on unwrapped: a write to a connection a killed mongod closed fails with Node's EPIPE. */
const SOCKET_ERROR_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A write concern error counts as unavailable: the write was not acknowledged as configured, so it must not be answered 200. */
export function isUnavailable(error: unknown): boolean {
  if (
    error instanceof MongoDeadlineError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoOperationTimeoutError ||
    // The deadline ended the operation's session while a later round trip of it was on its way.
    error instanceof MongoExpiredSessionError ||
    error instanceof MongoWriteConcernError
  ) {
    return true;
  }
  if (!(error instanceof MongoError)) return error instanceof Error && 'code' in error && SOCKET_ERROR_CODES.has(String(error.code));
  if (error.hasErrorLabel(MongoErrorLabel.RetryableWriteError) || error.hasErrorLabel(MongoErrorLabel.ResetPool)) return true;
  return error instanceof MongoServerError && typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code);
}

/** MongoDB refuses the write concern itself, not one write: every write with it fails the same way. */
export function refusesWriteConcern(error: unknown): error is MongoServerError {
  if (!(error instanceof MongoServerError)) return false;
  // UnsatisfiableWriteConcern (more members than the set has), UnknownReplWriteConcern, or BadValue for w > 1 or j on a standalone.
  return error.code === 100 || error.code === 79 || (error.code === 2 && /'[wj]'/.test(error.message));
}
