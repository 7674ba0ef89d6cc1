import type { Long } from 'mongodb';
import { isPending, missedAfter, type ChangeQueue, type MissedChange, CHANGE_DUE_INDEX, MISSED_INDEX } from './change-record.js';
import { changeEventBody } from './event-body.js';
import type { DueAttempt, FieldChanges, Outbox, Release } from './outbox.js';

export interface ChangeDocument {
  _id: Long;
  /** A deleted plant kept for its change events until they are delivered; invisible to every read of the store. */
  tombstone?: true;
  changes: ChangeQueue;
  /** Per URL, the latest change event given up on, until a resync; it keeps a tombstone. */
  missedChanges?: MissedChange[];
}

/**
 * Per URL, only the first event whose delivery to that URL is pending is attempted, so a plant's events reach each URL
 * in the order they were recorded, retries included.
 */
export const changeOutbox: Outbox<ChangeDocument> = {
  field: 'changes',
  name: 'change',
  projection: { tombstone: 1, changes: 1, missedChanges: 1 },
  indexes: [
    { spec: CHANGE_DUE_INDEX, without: 'due change events are found by scanning the collection' },
    { spec: MISSED_INDEX, without: 'missed change events are counted by scanning the collection' },
  ],
  copy: (document) => ({
    ...document,
    changes: {
      ...document.changes,
      events: document.changes.events.map((event) => ({ ...event, deliveries: event.deliveries.map((delivery) => ({ ...delivery })) })),
    },
  }),
  due(document, now) {
    return heads(document).flatMap(({ attempt, dueAt }) => (dueAt <= now ? [attempt] : []));
  },
  /**
   * Done events leave the queue; the rest are due at their heads' earliest attempt. A delivery given up on is kept as
   * its URL's missed change by the same write, so no crash between them can lose it. Conditional on the events the
   * claim knew of: one appended since (a change, or a resync that took a miss) must stay, and be due. A tombstone
   * whose events are all done goes, unless it keeps a miss.
   */
  release(document): Release {
    const { recorded } = document.changes;
    const when = { 'changes.recorded': recorded };
    const remaining = document.changes.events.filter(isPending);
    const missed = keptMisses(document);
    if (remaining.length === 0 && document.tombstone && missed.length === 0) return { remove: { ...when, tombstone: true } };
    const keep = keeping(document.missedChanges, missed);
    if (remaining.length === 0) return { changes: { $set: keep.$set, $unset: { ...keep.$unset, changes: '' } }, when, dueAt: undefined };
    const dueAt = Math.min(...heads(document).map((head) => head.dueAt));
    // The outcomes are already written in place: the queue is rewritten only when an event leaves it, so a claim that
    // found nothing due (a URL backing off) costs a plant with a long queue no rewrite of it.
    const left = remaining.length < document.changes.events.length ? { 'changes.events': remaining } : {};
    return {
      changes: { $set: { ...left, ...keep.$set, 'changes.dueAt': new Date(dueAt) }, $unset: { ...keep.$unset, 'changes.lease': '' } },
      when,
      dueAt,
    };
  },
};

/** The misses kept once the done events leave: those kept before, with the deliveries given up on since. */
function keptMisses(document: ChangeDocument): MissedChange[] {
  return missedAfter(
    document.missedChanges ?? [],
    document.changes.events.filter((event) => !isPending(event)),
  );
}

/** What writes `missed` over `kept`: nothing when they are the same entries, and no empty array left behind. */
function keeping(kept: readonly MissedChange[] | undefined, missed: readonly MissedChange[]): FieldChanges {
  if (missed.length === 0) return { $set: {}, $unset: kept ? { missedChanges: '' } : {} };
  const same = kept?.length === missed.length && missed.every((entry, index) => kept[index]?.webhookId === entry.webhookId);
  return { $set: same ? {} : { missedChanges: missed }, $unset: {} };
}

/** For each URL, its first pending delivery, with when it is due. */
function heads(document: ChangeDocument): { attempt: DueAttempt; dueAt: number }[] {
  const seen = new Set<string>();
  const found: { attempt: DueAttempt; dueAt: number }[] = [];
  document.changes.events.forEach((event, eventIndex) => {
    event.deliveries.forEach((delivery, index) => {
      if (delivery.state !== 'pending' || seen.has(delivery.url)) return;
      seen.add(delivery.url);
      const body = changeEventBody(event.type, event.at, document._id, event.plant);
      const path = `changes.events.${eventIndex}.deliveries.${index}`;
      found.push({ attempt: { delivery, path, body, traceparent: undefined }, dueAt: delivery.nextAttemptAt?.getTime() ?? 0 });
    });
  });
  return found;
}
