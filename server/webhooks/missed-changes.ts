import type { Collection, Filter, Long, UpdateFilter } from 'mongodb';
import { HAS_MISSED, newChangeEvent, type MissedChange } from './change-record.js';
import { ChangeWrites, isTooLarge, withQueued } from './change-writes.js';
import { idDigits } from './event-body.js';
import { selects, type FailedFilter } from './failed-filter.js';

/** A plant (or a tombstone) as a resync reads it: what it is now, and its change queue's lease and misses. */
export interface MissedDocument {
  _id: Long;
  name: string;
  tag?: string;
  revision?: number;
  tombstone?: true;
  changes?: { lease?: { token: string } };
  /** The new-plant event's due time, while it has deliveries pending. */
  webhook?: { dueAt?: Date };
  missedChanges?: MissedChange[];
}

export interface ListedMiss extends MissedChange {
  plantId: string;
  _id: Long;
}

export type ResyncOutcome =
  | { kind: 'resynced' }
  /** Changed or claimed at each try: run again. */
  | { kind: 'busy' }
  /** Its queue holds as many events as it may: run again once they are delivered. */
  | { kind: 'full' }
  /** No longer kept: resynced meanwhile, or replaced by a later miss of that URL (listed next time). */
  | { kind: 'gone' };

/** A change between a resync's (or a discard's) read and its write makes the write match nothing; it reads again this often. */
export const RESYNC_TRIES = 5;

/** Every missed change `filter` selects (the webhook-id is the given-up delivery's), oldest plant first. */
export async function listMissed(plants: Collection<MissedDocument>, filter: FailedFilter = {}): Promise<ListedMiss[]> {
  const documents = await plants.find(HAS_MISSED, { projection: { missedChanges: 1 }, sort: { _id: 1 } }).toArray();
  return documents.flatMap((document) =>
    (document.missedChanges ?? [])
      .filter((missed) => selects(filter, missed))
      .map((missed) => ({ ...missed, plantId: idDigits(document._id), _id: document._id })),
  );
}

/**
 * Repairs the URL's mirror of the plant: appends to the plant's queue a new event for that URL alone, the plant as
 * stored now (`plant.updated`, or `plant.deleted` for a tombstone), behind any event still queued, and takes the miss
 * in the same conditional write. Not the missed event itself: it would bring back a state newer events replaced.
 */
export async function resyncMissed(plants: Collection<MissedDocument>, missed: ListedMiss, queueLimit: number): Promise<ResyncOutcome> {
  const writes = new ChangeWrites([], queueLimit);
  const kept = { _id: missed._id, 'missedChanges.webhookId': missed.webhookId };
  for (let tries = 0; tries < RESYNC_TRIES; tries += 1) {
    const document = await plants.findOne(kept, { projection: { name: 1, tag: 1, revision: 1, tombstone: 1, 'changes.lease.token': 1 } });
    if (!document) return { kind: 'gone' };
    const now = new Date();
    const event = document.tombstone
      ? newChangeEvent('plant.deleted', now, [missed.url])
      : newChangeEvent('plant.updated', now, [missed.url], document);
    const queued = writes.queue(document, event);
    // As read: the same plant (its revision counts every change, a delete and a create again included), the same miss.
    const filter = {
      ...kept,
      revision: document.revision ?? { $exists: false },
      tombstone: document.tombstone ?? { $exists: false },
      ...queued.filter,
    } as Filter<MissedDocument>;
    const update = withQueued(queued, { $pull: { missedChanges: { webhookId: missed.webhookId } } }) as UpdateFilter<MissedDocument>;
    try {
      if ((await plants.updateOne(filter, update)).matchedCount === 1) return { kind: 'resynced' };
    } catch (error) {
      if (isTooLarge(error)) return { kind: 'full' };
      throw error;
    }
    if (await plants.findOne({ _id: missed._id, ...writes.full() }, { projection: { _id: 1 } })) return { kind: 'full' };
  }
  return { kind: 'busy' };
}
