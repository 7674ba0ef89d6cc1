import { setMaxListeners } from 'node:events';
import { Long, type Collection } from 'mongodb';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { readBacklog, type WebhookBacklog } from '../../server/webhooks/backlog.js';
import type { EventDocument } from '../../server/webhooks/delivery-worker.js';
import type { WebhookRecord } from '../../server/webhooks/webhook-record.js';
import { startTestApp, type TestApp } from './app.js';

/** The service's webhook settings for a test: fast retries, so a test waits milliseconds, not seconds. */
export function webhookEnv(urls: readonly string[], secret: string, env: Record<string, string> = {}): Record<string, string> {
  return { WEBHOOK_URLS: urls.join(','), WEBHOOK_SECRET: secret, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', ...env };
}

/** The event recorded with plant `id`, as MongoDB holds it. */
export async function eventOf(plants: Collection<PlantDocument>, id: number): Promise<WebhookRecord | undefined> {
  const document = await plants.findOne({ _id: Long.fromNumber(id) });
  return document?.webhook;
}

/** Polls plant `id`'s event until `predicate` holds, and answers it. */
export async function waitForEvent(
  plants: Collection<PlantDocument>,
  id: number,
  predicate: (event: WebhookRecord) => boolean,
  timeoutMs = 10_000,
): Promise<WebhookRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await eventOf(plants, id);
    if (event && predicate(event)) return event;
    if (Date.now() > deadline) throw new Error(`plant ${id}'s event did not reach the expected state: ${JSON.stringify(event)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The backlog as the service reads it, within five seconds. Its queries share the signal, and the driver adds more
 * than one listener per query: unbounded, as the service's own signals are, so Node warns of no leak.
 */
export function backlogOf(plants: Collection<EventDocument>, now?: Date): Promise<WebhookBacklog> {
  const signal = AbortSignal.timeout(5_000);
  setMaxListeners(0, signal);
  return readBacklog(plants, signal, now);
}

/** Every delivery of the event is in `state`. */
export const allIn = (state: 'delivered' | 'failed') => (event: WebhookRecord) =>
  event.deliveries.every((delivery) => delivery.state === state);

/**
 * For a test file: a receiver on 127.0.0.1 for all its tests, reset after each (nothing received,
 * answering 200), and the apps a test starts with `startApp`, closed (their databases dropped) after it.
 */
export function useWebhookReceiver(secret: string) {
  let receiver: WebhookReceiver | undefined;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret });
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    if (receiver) {
      receiver.received.length = 0;
      receiver.respond = () => 200;
    }
  });
  afterAll(async () => {
    await receiver?.close();
  });
  return {
    get receiver(): WebhookReceiver {
      if (!receiver) throw new Error('useWebhookReceiver: used outside a test');
      return receiver;
    },
    startApp: async (options: Parameters<typeof startTestApp>[0]): Promise<TestApp> => {
      const app = await startTestApp(options);
      apps.push(app);
      return app;
    },
  };
}
