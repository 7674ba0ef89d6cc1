import type { Collection } from 'mongodb';
import type { EventDocument } from './delivery-worker.js';

/** Where the deliveries stand, shared by every instance on the same MongoDB. */
export interface WebhookBacklog {
  due: number;
  oldestDueAt: Date | undefined;
  /** Events with a delivery given up on and not replayed. */
  failed: number;
}

/** Three small queries, each on a sparse index that holds only the events it counts. */
export async function readBacklog(plants: Collection<EventDocument>, signal: AbortSignal, now = new Date()): Promise<WebhookBacklog> {
  const due = { 'webhook.dueAt': { $lte: now } };
  const [dueCount, oldest, failed] = await Promise.all([
    plants.countDocuments(due, { signal }),
    plants.findOne(due, { sort: { 'webhook.dueAt': 1 }, projection: { 'webhook.dueAt': 1 }, signal }),
    plants.countDocuments({ 'webhook.deliveries.failedAt': { $exists: true } }, { signal }),
  ]);
  return { due: dueCount, oldestDueAt: oldest?.webhook.dueAt, failed };
}
