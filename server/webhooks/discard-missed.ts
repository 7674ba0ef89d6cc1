import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { RESYNC_TRIES, type ListedMiss, type MissedDocument } from './missed-changes.js';

export interface DiscardCounts {
  discarded: number;
  /** Changed or claimed at each try: run again. */
  busy: number;
  /** No longer kept: resynced or discarded meanwhile, or replaced by a later miss of that URL (listed next time). */
  gone: number;
}

/**
 * Drops the misses, for URLs whose mirrors are retired: nothing is resynced. A tombstone kept for them alone (no event
 * queued, none of the new-plant event pending) goes with them.
 */
export async function discardMissed(plants: Collection<MissedDocument>, misses: readonly ListedMiss[]): Promise<DiscardCounts> {
  const counts: DiscardCounts = { discarded: 0, busy: 0, gone: 0 };
  for (const miss of misses) counts[await discardOne(plants, miss)] += 1;
  return counts;
}

/**
 * One conditional write, on what it read: the miss (and that it is the last, when it is), the queue's lease (a claim in
 * between makes it match nothing, and it reads again; under a held lease it counts one more event recorded, so the
 * holder's release, which rewrites the misses from its own read, reads again instead of bringing them back), and for a
 * tombstone's removal the tombstone itself (a create or an event in between keeps it).
 */
async function discardOne(plants: Collection<MissedDocument>, { _id, webhookId }: ListedMiss): Promise<keyof DiscardCounts> {
  const projection = { tombstone: 1, revision: 1, 'changes.recorded': 1, 'changes.lease.token': 1, 'webhook.dueAt': 1, missedChanges: 1 };
  for (let tries = 0; tries < RESYNC_TRIES; tries += 1) {
    const document = await plants.findOne({ _id, 'missedChanges.webhookId': webhookId }, { projection });
    if (!document) return 'gone';
    const last = document.missedChanges?.length === 1;
    const miss = { 'missedChanges.webhookId': webhookId, ...(last && { missedChanges: { $size: 1 } }) };
    if (last && document.tombstone && document.changes === undefined && document.webhook?.dueAt === undefined) {
      const tombstone = {
        _id,
        tombstone: true,
        revision: document.revision ?? { $exists: false },
        changes: { $exists: false },
        'webhook.dueAt': { $exists: false },
        ...miss,
      } as Filter<MissedDocument>;
      if ((await plants.deleteOne(tombstone)).deletedCount === 1) return 'discarded';
      continue;
    }
    const token = document.changes?.lease?.token;
    const lease = token === undefined ? { 'changes.lease': { $exists: false } } : { 'changes.lease.token': token };
    const update = {
      ...(last ? { $unset: { missedChanges: '' } } : { $pull: { missedChanges: { webhookId } } }),
      ...(token !== undefined && { $inc: { 'changes.recorded': 1 } }),
    } as UpdateFilter<MissedDocument>;
    if ((await plants.updateOne({ _id, ...lease, ...miss }, update)).matchedCount === 1) return 'discarded';
  }
  return 'busy';
}
