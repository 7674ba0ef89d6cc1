import { MongoServerError, type Document } from 'mongodb';
import type { PlantChangeType } from '../../schemas/change-event.js';
import { newChangeEvent, type ChangeEvent } from './change-record.js';

/** What a change's write adds to queue its event; empty, with no event, when change events are off. */
export interface QueuedChange {
  /** Conditions on the plant's `changes`, by dotted path. */
  filter: Document;
  update: { $push?: { 'changes.events': ChangeEvent }; $inc?: { 'changes.recorded': number }; $min?: { 'changes.dueAt': Date } };
  event?: ChangeEvent;
}

/** The write side of change events: each change's event, appended by the write that makes the change. */
export class ChangeWrites {
  constructor(
    private readonly urls: readonly string[],
    /** Events a plant may have waiting; a change beyond them is refused until some go. */
    readonly limit: number,
  ) {}

  get enabled(): boolean {
    return this.urls.length > 0;
  }

  /** The change's event, when change events are on. */
  event(type: PlantChangeType, at: Date, plant?: { name: string; tag?: string | undefined }): ChangeEvent | undefined {
    return this.enabled ? newChangeEvent(type, at, this.urls, plant) : undefined;
  }

  /**
   * Appends `event` to the plant's change events in the change's own write. While a worker holds them, the write leaves
   * their due time to the worker (whose release, conditional on the count of events, then sees this one); otherwise it
   * makes them due now. Either way the filter pins the lease as read, so a claim or release in between makes the write
   * match nothing and the caller reads again. The filter also keeps the queue within its limit.
   */
  queue(read: { changes?: { lease?: { token: string } } }, event: ChangeEvent | undefined): QueuedChange {
    if (!event) return { filter: {}, update: {} };
    const token = read.changes?.lease?.token;
    return {
      event,
      filter: {
        ...(token === undefined ? { 'changes.lease': { $exists: false } } : { 'changes.lease.token': token }),
        [this.lastQueued]: { $exists: false },
      },
      update: {
        $push: { 'changes.events': event },
        $inc: { 'changes.recorded': 1 },
        ...(token === undefined && { $min: { 'changes.dueAt': event.at } }),
      },
    };
  }

  /** Matches a plant whose queue is full. */
  full(): Document {
    return { [this.lastQueued]: { $exists: true } };
  }

  /** Present once the queue holds `limit` events. */
  private get lastQueued(): string {
    return `changes.events.${this.limit - 1}`;
  }
}

/**
 * `change` with the queued event's operators merged in field by field, so that neither drops the other's (`$inc`); the
 * event's fields are all under `changes`, apart from any a change sets.
 */
export function withQueued<T extends Document>(queued: QueuedChange, change: T): T {
  const merged: Document = { ...change };
  for (const [operator, fields] of Object.entries(queued.update)) merged[operator] = { ...(merged[operator] as Document), ...fields };
  return merged as T;
}

/** mongod's refusal of an update whose result would be larger than 16 MiB: long URLs make events large. */
export function isTooLarge(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 17419;
}
