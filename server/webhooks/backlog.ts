import type { Collection } from 'mongodb';
import { HAS_MISSED } from './change-record.js';
import type { EventDocument } from './delivery-worker.js';

/** Where the deliveries stand, shared by every instance on the same MongoDB. */
export interface WebhookBacklog {
  due: number;
  oldestDueAt: Date | undefined;
  /** New-plant events with a delivery given up on and not replayed, and plants with a change event missed, not resynced. */
  failed: number;
}

/**
 * Small queries, each on a sparse index that holds only the events it counts. Due counts plants with new-plant or change
 * events due; failed, plants with a failed new-plant delivery or with a missed change (the CLI lists each delivery and
 * each URL missed, so its counts may be higher).
 */
export async function readBacklog(plants: Collection<EventDocument>, signal: AbortSignal, now = new Date()): Promise<WebhookBacklog> {
  const [webhooks, changes, failed, missed] = await Promise.all([
    dueIn(plants, 'webhook', now, signal),
    dueIn(plants, 'changes', now, signal),
    plants.countDocuments({ 'webhook.deliveries.failedAt': { $exists: true } }, { signal }),
    plants.countDocuments(HAS_MISSED, { signal }),
  ]);
  const oldest = [webhooks.oldestDueAt, changes.oldestDueAt].filter((at) => at !== undefined).sort((a, b) => a.getTime() - b.getTime())[0];
  return { due: webhooks.due + changes.due, oldestDueAt: oldest, failed: failed + missed };
}

async function dueIn(plants: Collection<EventDocument>, field: 'webhook' | 'changes', now: Date, signal: AbortSignal) {
  const due = { [`${field}.dueAt`]: { $lte: now } };
  const [count, oldest] = await Promise.all([
    plants.countDocuments(due, { signal }),
    plants.findOne(due, { sort: { [`${field}.dueAt`]: 1 }, projection: { [`${field}.dueAt`]: 1 }, signal }),
  ]);
  const record = (oldest as Record<string, { dueAt?: Date } | undefined> | null)?.[field];
  return { due: count, oldestDueAt: record?.dueAt };
}
