import type { FastifyInstance } from 'fastify';
import type { Db, WriteConcernSettings } from 'mongodb';
import type { OperationGuard } from '../db/mongo-database.js';
import { DeliveryWorker, type EventDocument } from './delivery-worker.js';
import type { WebhookConfig } from './webhook-config.js';

/** What the plant store needs to record events: the URLs, and whom to tell that one was recorded. */
export interface EventRecorder {
  urls: readonly string[];
  recorded(): void;
}

const POLL_MS = 1_000;
const CONCURRENCY = 16;
const FINISH_WITHIN_MS = 2_000;

/**
 * Runs this instance's webhook delivery worker with the app (started once it is ready, stopped
 * when it closes, before the MongoClient closes: Fastify runs onClose hooks last-added first), when
 * WEBHOOK_SECRET is set. Answers the recorder for the store when WEBHOOK_URLS is set too.
 */
export function registerWebhooks(
  app: FastifyInstance,
  { db, guard, collection, writeConcern, config }: { db: Db; guard: OperationGuard; collection: string; writeConcern: WriteConcernSettings; config: { webhooks: WebhookConfig; mongodb: { timeoutMs: number } } },
): EventRecorder | undefined {
  const { secret, urls, retryBaseMs, maxAttempts, timeoutMs } = config.webhooks;
  if (secret === undefined) return undefined;
  // Ids read back as Long whatever their size, so the body's id is written from the stored Int64.
  const plants = db.collection<EventDocument>(collection, { writeConcern, promoteLongs: false });
  const worker = new DeliveryWorker(
    plants,
    {
      secret,
      retryBaseMs,
      maxAttempts,
      timeoutMs,
      // An attempt, then up to two MongoDB round trips (the driver retries a write once) to record it.
      leaseMs: timeoutMs + 2 * config.mongodb.timeoutMs + 1_000,
      pollMs: POLL_MS,
      concurrency: CONCURRENCY,
      finishWithinMs: Math.min(timeoutMs, FINISH_WITHIN_MS),
    },
    app.log.child({ component: 'webhooks' }),
    guard,
  );
  app.addHook('onReady', async () => {
    worker.start();
  });
  app.addHook('onClose', () => worker.stop());
  return urls.length > 0 ? { urls, recorded: () => { worker.nudge(); } } : undefined;
}
