import type { FastifyInstance } from 'fastify';
import type { Db, WriteConcernSettings } from 'mongodb';
import type { OperationGuard } from '../db/mongo-database.js';
import { isUnavailable } from '../db/mongo-errors.js';
import { readBacklog, type WebhookBacklog } from './backlog.js';
import { changeOutbox, type ChangeDocument } from './change-outbox.js';
import { DeliveryWorker, type DeliveryObservers, type DeliveryWorkerOptions, type EventDocument } from './delivery-worker.js';
import { newPlantOutbox } from './new-plant-outbox.js';
import type { WebhookConfig } from './webhook-config.js';

/**
 * What the plant store needs to record events: the URLs of new plants and of changes, whom to tell that one was
 * recorded, and the trace context to keep with it.
 */
export interface EventRecorder {
  urls: readonly string[];
  changeUrls: readonly string[];
  changeQueueLimit: number;
  recorded(): void;
  traceparent?: (() => string | undefined) | undefined;
}

/** What watches the webhooks, each part optional: the attempts, the trace context of new events, the backlog. */
export interface WebhookObservers extends DeliveryObservers {
  traceparent?: (() => string | undefined) | undefined;
  /** Given the reader of the backlog, which the metrics call when they are scraped. */
  backlog?(read: () => Promise<WebhookBacklog>): void;
}

const POLL_MS = 1_000;
const CONCURRENCY = 16;
const FINISH_WITHIN_MS = 2_000;

/** Stopped on close before the MongoClient closes (Fastify runs onClose hooks last-added first). */
export function registerWebhooks(
  app: FastifyInstance,
  {
    db,
    guard,
    collection,
    writeConcern,
    config,
    observers = {},
  }: {
    db: Db;
    guard: OperationGuard;
    collection: string;
    writeConcern: WriteConcernSettings;
    config: { webhooks: WebhookConfig; mongodb: { timeoutMs: number } };
    observers?: WebhookObservers;
  },
): EventRecorder | undefined {
  const { secret, urls, changeUrls, retryBaseMs, maxAttempts, timeoutMs } = config.webhooks;
  if (secret === undefined) return undefined;
  // Ids read back as Long whatever their size, so the body's id is written from the stored Int64.
  const plants = db.collection<EventDocument>(collection, { writeConcern, promoteLongs: false });
  const options: DeliveryWorkerOptions = {
    secret,
    retryBaseMs,
    maxAttempts,
    timeoutMs,
    // An attempt, then up to two MongoDB round trips (the driver retries a write once) to record it.
    leaseMs: timeoutMs + 2 * config.mongodb.timeoutMs + 1_000,
    pollMs: POLL_MS,
    concurrency: CONCURRENCY,
    finishWithinMs: Math.min(timeoutMs, FINISH_WITHIN_MS),
    observers,
  };
  const log = app.log.child({ component: 'webhooks' });
  // Both run whatever URLs are set now: events recorded under an earlier configuration are still delivered.
  const workers = [
    new DeliveryWorker(plants, newPlantOutbox, options, log, guard),
    new DeliveryWorker(db.collection<ChangeDocument>(collection, { writeConcern, promoteLongs: false }), changeOutbox, options, log, guard),
  ];
  app.addHook('onReady', async () => {
    for (const worker of workers) worker.start();
  });
  app.addHook('onClose', () => Promise.all(workers.map((worker) => worker.stop())).then(() => undefined));
  observers.backlog?.(() =>
    readBacklog(plants, guard.signal()).catch((error: unknown) => {
      if (isUnavailable(error)) guard.unavailable(error);
      throw error;
    }),
  );
  return urls.length > 0 || changeUrls.length > 0
    ? {
        urls,
        changeUrls,
        changeQueueLimit: config.webhooks.changeQueueLimit,
        recorded: () => {
          for (const worker of workers) worker.nudge();
        },
        traceparent: observers.traceparent,
      }
    : undefined;
}
