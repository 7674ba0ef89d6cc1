import type { Collection, Filter, UpdateFilter } from 'mongodb';
import type { EventDocument } from './delivery-worker.js';
import { idDigits } from './event-body.js';
import { selects, type FailedFilter } from './failed-filter.js';
import type { WebhookDelivery } from './webhook-record.js';

export interface FailedDelivery {
  plantId: string;
  webhookId: string;
  url: string;
  attempts: number;
  lastError: string | undefined;
  failedAt: Date | undefined;
}

const FAILED: Filter<EventDocument> = { 'webhook.deliveries.state': 'failed' };

/** Every failed delivery `filter` selects, oldest plant first. */
export async function listFailed(plants: Collection<EventDocument>, filter: FailedFilter = {}): Promise<FailedDelivery[]> {
  const documents = await plants.find(FAILED, { projection: { webhook: 1 }, sort: { _id: 1 } }).toArray();
  return documents.flatMap((document) =>
    document.webhook.deliveries
      .filter((delivery) => isSelected(filter, delivery))
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
export async function replayFailed(
  plants: Collection<EventDocument>,
  filter: FailedFilter = {},
): Promise<{ replayed: number; busy: number }> {
  const documents = await plants.find(FAILED, { projection: { webhook: 1 } }).toArray();
  const now = new Date();
  let replayed = 0;
  let busy = 0;
  for (const document of documents) {
    const indexes = selectedIndexes(document, filter);
    if (indexes.length === 0) continue;
    const conditions: Record<string, unknown> = { _id: document._id, 'webhook.lease': { $exists: false } };
    const set: Record<string, unknown> = { 'webhook.dueAt': now };
    for (const index of indexes) {
      conditions[`webhook.deliveries.${index}.state`] = 'failed';
      Object.assign(set, {
        [`webhook.deliveries.${index}.state`]: 'pending',
        [`webhook.deliveries.${index}.attempts`]: 0,
        [`webhook.deliveries.${index}.nextAttemptAt`]: now,
      });
    }
    const unset = Object.fromEntries(indexes.map((index) => [`webhook.deliveries.${index}.failedAt`, '']));
    const { modifiedCount } = await plants.updateOne(conditions, { $set: set, $unset: unset } as UpdateFilter<EventDocument>);
    if (modifiedCount === 1) replayed += indexes.length;
    else busy += indexes.length;
  }
  return { replayed, busy };
}

/**
 * Marks the selected failed deliveries `discarded`: no longer listed, counted or replayable. Each write is conditional on
 * its delivery still failed under the same webhook-id, so one replayed or discarded meanwhile is left as it is (`gone`).
 * A claim needs no waiting for: it attempts and writes only pending deliveries.
 */
export async function discardFailed(
  plants: Collection<EventDocument>,
  filter: FailedFilter = {},
): Promise<{ discarded: number; gone: number }> {
  const documents = await plants.find(FAILED, { projection: { webhook: 1 } }).toArray();
  const now = new Date();
  let discarded = 0;
  let gone = 0;
  for (const document of documents) {
    for (const index of selectedIndexes(document, filter)) {
      const path = `webhook.deliveries.${index}`;
      const { modifiedCount } = await plants.updateOne(
        { _id: document._id, [`${path}.state`]: 'failed', [`${path}.id`]: document.webhook.deliveries[index]?.id },
        { $set: { [`${path}.state`]: 'discarded', [`${path}.discardedAt`]: now }, $unset: { [`${path}.failedAt`]: '' } },
      );
      if (modifiedCount === 1) discarded += 1;
      else gone += 1;
    }
  }
  return { discarded, gone };
}

function isSelected(filter: FailedFilter, delivery: WebhookDelivery): boolean {
  return delivery.state === 'failed' && selects(filter, { webhookId: delivery.id, url: delivery.url });
}

function selectedIndexes(document: EventDocument, filter: FailedFilter): number[] {
  return document.webhook.deliveries.flatMap((delivery, index) => (isSelected(filter, delivery) ? [index] : []));
}
