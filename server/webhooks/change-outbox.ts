import type { Long } from 'mongodb';
import { isPending, type ChangeQueue, CHANGE_DUE_INDEX } from './change-record.js';
import { changeEventBody } from './event-body.js';
import type { DueAttempt, Outbox, Release } from './outbox.js';

export interface ChangeDocument {
  _id: Long;
  /** A deleted plant kept for its change events until they are delivered; invisible to every read of the store. */
  tombstone?: true;
  changes: ChangeQueue;
}

/**
 * Per URL, only the first event whose delivery to that URL is pending is attempted, so a plant's events reach each URL
 * in the order they were recorded, retries included.
 */
export const changeOutbox: Outbox<ChangeDocument> = {
  field: 'changes',
  name: 'change',
  projection: { tombstone: 1, changes: 1 },
  indexes: [{ spec: CHANGE_DUE_INDEX, without: 'due change events are found by scanning the collection' }],
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
   * Done events leave the queue; the rest are due at their heads' earliest attempt. Conditional on the events the claim
   * knew of: one appended since must stay, and be due. A tombstone whose events are all done goes.
   */
  release(document): Release {
    const { recorded } = document.changes;
    const when = { 'changes.recorded': recorded };
    const remaining = document.changes.events.filter(isPending);
    if (remaining.length === 0 && document.tombstone) return { remove: { ...when, tombstone: true } };
    if (remaining.length === 0) return { changes: { $set: {}, $unset: { changes: '' } }, when, dueAt: undefined };
    const dueAt = Math.min(...heads(document).map((head) => head.dueAt));
    // The outcomes are already written in place: the queue is rewritten only when an event leaves it, so a claim that
    // found nothing due (a URL backing off) costs a plant with a long queue no rewrite of it.
    const left = remaining.length < document.changes.events.length ? { 'changes.events': remaining } : {};
    return { changes: { $set: { ...left, 'changes.dueAt': new Date(dueAt) }, $unset: { 'changes.lease': '' } }, when, dueAt };
  },
};

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
