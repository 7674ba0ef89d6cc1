import type { EventDocument } from './delivery-worker.js';
import { newPlantBody } from './event-body.js';
import type { Outbox, Release } from './outbox.js';
import { DUE_INDEX, FAILED_INDEX } from './webhook-record.js';

/** The new-plant event: one body, one delivery per URL, each attempted when due; kept once done, for `webhooks:failed`. */
export const newPlantOutbox: Outbox<EventDocument> = {
  field: 'webhook',
  name: 'new plant',
  projection: { name: 1, tag: 1, webhook: 1 },
  indexes: [
    { spec: DUE_INDEX, without: 'due events are found by scanning the collection' },
    { spec: FAILED_INDEX, without: 'failed events are counted by scanning the collection' },
  ],
  copy: (document) => ({
    ...document,
    webhook: { ...document.webhook, deliveries: document.webhook.deliveries.map((delivery) => ({ ...delivery })) },
  }),
  due(document, now) {
    // Records written before the plant was kept in them are sent as the plant is now.
    const body = newPlantBody({ _id: document._id, ...(document.webhook.plant ?? document) });
    return document.webhook.deliveries.flatMap((delivery, index) =>
      delivery.state === 'pending' && (delivery.nextAttemptAt?.getTime() ?? 0) <= now
        ? [{ delivery, path: `webhook.deliveries.${index}`, body, traceparent: document.webhook.traceparent }]
        : [],
    );
  },
  /** Due again at the earliest pending attempt, or out of the due index when none is left. */
  release(document): Release {
    const pending = document.webhook.deliveries
      .filter((delivery) => delivery.state === 'pending')
      .map((delivery) => delivery.nextAttemptAt?.getTime() ?? 0);
    if (pending.length === 0) return { changes: { $set: {}, $unset: { 'webhook.dueAt': '', 'webhook.lease': '' } }, dueAt: undefined };
    const dueAt = Math.min(...pending);
    return { changes: { $set: { 'webhook.dueAt': new Date(dueAt) }, $unset: { 'webhook.lease': '' } }, dueAt };
  },
};
