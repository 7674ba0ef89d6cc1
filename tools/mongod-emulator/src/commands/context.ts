// What every command handler receives, and small helpers for reading command arguments.
import type { CursorRegistry } from '../cursors.js';
import { CommandError } from '../errors.js';
import type { FailPoints } from '../failpoints.js';
import type { Collection, Store } from '../store.js';
import { isDoc, type Doc } from '../values.js';

export interface ServerInfo {
  port: number;
  startedAt: Date;
  /** `--setParameter enableTestCommands=1`: configureFailPoint exists, as on mongod. */
  testCommands: boolean;
  requestShutdown(): void;
}

export interface CommandContext {
  store: Store;
  cursors: CursorRegistry;
  failPoints: FailPoints;
  server: ServerInfo;
  connectionId: number;
  /** The database the command runs against (`$db`). */
  db: string;
  command: Doc;
}

export type CommandHandler = (context: CommandContext) => Doc;

/** Thrown by `shutdown`: the connection layer exits without replying, as mongod does. */
export class ShutdownRequested extends Error {}

/** Thrown when the failCommand fail point drops the connection: closed without a reply. */
export class CloseConnectionRequested extends Error {}

/** The collection named by the command's first field (e.g. `{ find: 'plants' }`). */
export function collectionName(context: CommandContext): string {
  const [name, value] = Object.entries(context.command)[0] ?? ['', undefined];
  if (typeof value !== 'string' || value === '') {
    throw new CommandError('InvalidNamespace', `collection name has invalid type ${typeof value} for ${name}`);
  }
  return value;
}

export function docArgument(context: CommandContext, field: string, fallback: Doc = {}): Doc {
  const value = context.command[field];
  if (value === undefined || value === null) return fallback;
  if (!isDoc(value))
    throw new CommandError('TypeMismatch', `BSON field '${field}' is the wrong type '${typeof value}', expected type 'object'`);
  return value;
}

export function arrayArgument(context: CommandContext, field: string): unknown[] {
  const value = context.command[field];
  if (!Array.isArray(value)) throw new CommandError('FailedToParse', `BSON field '${field}' is missing but a required field`);
  return value;
}

export function existingCollection(context: CommandContext): Collection | undefined {
  return context.store.collection(context.db, collectionName(context));
}

export function cursorReply(ns: string, batchField: 'firstBatch' | 'nextBatch', reply: { batch: Doc[]; id: unknown }): Doc {
  return { cursor: { [batchField]: reply.batch, id: reply.id, ns } };
}
