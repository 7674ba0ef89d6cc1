import type { LoadPlant } from './drive-load.js';
import type { ReceivedWebhook } from '@plant-store/service-launcher';

export interface WebhookCheck {
  /** Requests the receiver got. */
  received: number;
  /** Plants answered 200 whose event never arrived, verified, with the body sent. */
  missing: number;
  /** Events that arrived more than once (the same webhook-id again). */
  duplicates: number;
  /** Requests whose signature `standardwebhooks` refused. */
  unverified: number;
  /** Verified requests whose body is not a plant that was answered 200, exactly as sent. */
  wrong: number;
  /** From the last 200 to the last event's arrival. */
  drainMs: number;
}

/** Compares what a receiver got with the plants answered 200: one verified event each, as sent. */
export function verifyWebhooks(
  received: readonly ReceivedWebhook[],
  sent: readonly LoadPlant[],
  okIds: readonly number[],
  lastAnswerAt: number,
): WebhookCheck {
  const sentById = new Map(sent.map((plant) => [plant.id, plant]));
  const expected = new Map(okIds.map((id) => [id, sentById.get(id)]));
  const arrived = new Set<number>();
  const ids = new Set<string>();
  let duplicates = 0;
  let wrong = 0;
  for (const request of received) {
    if (ids.has(request.id)) duplicates += 1;
    ids.add(request.id);
    if (request.verifyError !== undefined) continue;
    const plant = JSON.parse(request.body) as LoadPlant;
    if (request.body === JSON.stringify(expected.get(plant.id))) arrived.add(plant.id);
    else wrong += 1;
  }
  const lastArrival = received.reduce((latest, request) => Math.max(latest, request.receivedAt), lastAnswerAt);
  return {
    received: received.length,
    missing: okIds.filter((id) => !arrived.has(id)).length,
    duplicates,
    unverified: received.filter((request) => request.verifyError !== undefined).length,
    wrong,
    drainMs: lastArrival - lastAnswerAt,
  };
}
