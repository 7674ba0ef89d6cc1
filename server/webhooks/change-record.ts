import type { PlantChangeType } from '../../schemas/change-event.js';
import { newDelivery, type WebhookDelivery, type WebhookLease } from './webhook-record.js';

/**
 * The plant's change events, queued in its own document so that the write that changes the plant appends its event
 * (no transaction needed). One claim per document at a time keeps each plant's events in order.
 */
export interface ChangeQueue {
  dueAt?: Date;
  lease?: WebhookLease;
  claims: number;
  /** How many events were ever appended: a release is conditional on it, so it cannot drop or strand a newer one. */
  recorded: number;
  events: ChangeEvent[];
}

export interface ChangeEvent {
  type: PlantChangeType;
  /** When the change was made: the event's `timestamp`. */
  at: Date;
  /** The plant as stored after the change; absent for a delete, whose data is the id alone. */
  plant?: { name: string; tag?: string };
  deliveries: WebhookDelivery[];
}

/**
 * A change event given up on for one URL: that URL's mirror of the plant may be stale until a resync. Kept beside the
 * queue (not in it), so it outlives the queue and, on a tombstone, the plant; one per URL, the latest.
 */
export interface MissedChange {
  url: string;
  type: PlantChangeType;
  /** The given-up delivery's webhook-id. */
  webhookId: string;
  attempts: number;
  failedAt: Date;
  lastError?: string;
}

export const CHANGE_DUE_INDEX = { key: { 'changes.dueAt': 1 }, name: 'changes_dueAt', sparse: true } as const;
export const MISSED_INDEX = { key: { 'missedChanges.failedAt': 1 }, name: 'missedChanges_failedAt', sparse: true } as const;
/** Matches a document with a missed change kept (a resync's `$pull` may leave an empty array until the next release). */
export const HAS_MISSED = { 'missedChanges.failedAt': { $exists: true } } as const;
/** URLs a plant keeps misses for: one per URL ever configured, so only a long history of URL changes reaches it. */
export const MISSED_LIMIT = 100;

export function newChangeEvent(
  type: PlantChangeType,
  at: Date,
  urls: readonly string[],
  plant?: { name: string; tag?: string | undefined },
): ChangeEvent {
  const snapshot = plant && { name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) };
  return { type, at, ...(snapshot && { plant: snapshot }), deliveries: urls.map((url) => newDelivery(url, at)) };
}

/** An event still waiting for one of its URLs; one whose deliveries all ended (delivered or failed) is done. */
export function isPending(event: ChangeEvent): boolean {
  return event.deliveries.some((delivery) => delivery.state === 'pending');
}

/**
 * The misses kept after `done` events leave the queue: each delivery given up on replaces its URL's entry (a resync
 * sends the latest state, so the latest miss says enough), the oldest going beyond `MISSED_LIMIT`. A later event
 * delivered to that URL clears it: each event carries the plant's whole state, and a URL gets them in order.
 */
export function missedAfter(kept: readonly MissedChange[], done: readonly ChangeEvent[]): MissedChange[] {
  let missed = [...kept];
  for (const event of done) {
    for (const delivery of event.deliveries) {
      if (delivery.state === 'delivered') missed = missed.filter((other) => other.url !== delivery.url);
      if (delivery.state !== 'failed') continue;
      const entry: MissedChange = {
        url: delivery.url,
        type: event.type,
        webhookId: delivery.id,
        attempts: delivery.attempts,
        failedAt: delivery.failedAt ?? new Date(),
        ...(delivery.lastError !== undefined && { lastError: delivery.lastError }),
      };
      missed = [...missed.filter((other) => other.url !== delivery.url), entry];
    }
  }
  return missed.slice(-MISSED_LIMIT);
}
