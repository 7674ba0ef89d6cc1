import type { Collection, Filter, UpdateFilter } from 'mongodb';
import type { EventDocument } from './delivery-worker.js';
import { idDigits } from './event-body.js';

export interface FailedDelivery {
  plantId: string;
  webhookId: string;
  url: string;
  attempts: number;
  lastError: string | undefined;
  failedAt: Date | undefined;
}

const FAILED: Filter<EventDocument> = { 'webhook.deliveries.state': 'failed' };

/** Every failed delivery, oldest plant first (or only the one with `webhookId`). */
export async function listFailed(plants: Collection<EventDocument>, webhookId?: string): Promise<FailedDelivery[]> {
  const documents = await plants.find(FAILED, { projection: { webhook: 1 }, sort: { _id: 1 } }).toArray();
  return documents.flatMap((document) =>
    document.webhook.deliveries
      .filter((delivery) => delivery.state === 'failed' && (webhookId === undefined || delivery.id === webhookId))
      .map((delivery) => ({
        plantId: idDigits(document._id),
        webhookId: delivery.id,
        url: delivery.url,
        attempts: delivery.attempts,
        lastError: delivery.lastError,
        failedAt: delivery.failedAt,
      })),
  );
}

/**
 * Replays keep the same webhook-id, so a receiver that did get one can tell. Events under a claim are skipped (`busy`):
 * the claim's release would not know of the replay.
 */
export async function replayFailed(plants: Collection<EventDocument>, webhookId?: string): Promise<{ replayed: number; busy: number }> {
  const documents = await plants.find(FAILED, { projection: { webhook: 1 } }).toArray();
  const now = new Date();
  let replayed = 0;
  let busy = 0;
  for (const document of documents) {
    const indexes = document.webhook.deliveries.flatMap((delivery, index) =>
      delivery.state === 'failed' && (webhookId === undefined || delivery.id === webhookId) ? [index] : [],
    );
    if (indexes.length === 0) continue;
    const filter: Record<string, unknown> = { _id: document._id, 'webhook.lease': { $exists: false } };
    const set: Record<string, unknown> = { 'webhook.dueAt': now };
    for (const index of indexes) {
      filter[`webhook.deliveries.${index}.state`] = 'failed';
      Object.assign(set, {
        [`webhook.deliveries.${index}.state`]: 'pending',
        [`webhook.deliveries.${index}.attempts`]: 0,
        [`webhook.deliveries.${index}.nextAttemptAt`]: now,
      });
    }
    const unset = Object.fromEntries(indexes.map((index) => [`webhook.deliveries.${index}.failedAt`, '']));
    const { modifiedCount } = await plants.updateOne(filter, { $set: set, $unset: unset } as UpdateFilter<EventDocument>);
    if (modifiedCount === 1) replayed += indexes.length;
    else busy += indexes.length;
  }
  return { replayed, busy };
}
