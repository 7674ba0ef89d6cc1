import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Abortable, Collection, CreateIndexesOptions, FindOneAndUpdateOptions, UpdateFilter, UpdateOptions } from 'mongodb';
import type { OperationGuard } from '../db/mongo-database.js';
import { isUnavailable } from '../db/mongo-errors.js';
import { idDigits, newPlantBody, type PlantAsRead } from './event-body.js';
import { loggedUrl } from '../logs/logged-url.js';
import { retryDelayMs } from './retry-schedule.js';
import { sendWebhook, type AttemptOutcome } from './send-webhook.js';
import type { WebhookSecret } from './webhook-config.js';
import { DUE_INDEX, FAILED_INDEX, type WebhookDelivery, type WebhookRecord } from './webhook-record.js';

export interface DeliveryWorkerOptions {
  secret: WebhookSecret;
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  /** How long a claim holds: longer than an attempt and the writes that record it. */
  leaseMs: number;
  /** How often an idle worker looks for events other instances recorded, and for leases that ran out. */
  pollMs: number;
  concurrency: number;
  /** At shutdown, how long attempts in flight may take before they are abandoned and released. */
  finishWithinMs: number;
  /** Who watches the attempts: none when neither metrics nor traces are on. */
  observers?: DeliveryObservers | undefined;
}

export type AttemptResult = 'delivered' | 'retry' | 'failed';

export interface ObservedAttempt {
  url: string;
  webhookId: string;
  attempt: number;
  /** The trace context of the create that recorded the event, when it was traced. */
  traceparent: string | undefined;
}

export interface DeliveryObservers {
  /** Runs an attempt (`send`, which takes headers to add to the request, such as a trace context) and answers its outcome. */
  aroundAttempt?(attempt: ObservedAttempt, send: (headers: Record<string, string>) => Promise<AttemptOutcome>): Promise<AttemptOutcome>;
  counted?(result: AttemptResult): void;
}

export type EventDocument = PlantAsRead & { webhook: WebhookRecord };

interface Claim {
  document: EventDocument;
  token: string;
  claimedAt: number;
}

/** A claim being worked on: its lease's end as this instance knows it, moved on by each renewal MongoDB acknowledged. */
interface HeldLease {
  document: EventDocument;
  token: string;
  /** Counted from before the write that set it was sent, so never later than the end MongoDB holds. */
  endsAt: number;
}

const RECORD_RETRY_MS = 100;

interface FieldChanges {
  $set: Record<string, unknown>;
  $unset: Record<string, ''>;
}

/**
 * Delivers recorded events, driven from MongoDB: claims one due event at a time under a lease and a token, renewing the
 * lease while it works, so a slow attempt does not let another instance repeat a delivery; a dead instance's claim lapses.
 */
export class DeliveryWorker {
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** Every attempt in flight listens to it (and stops listening when it ends): as many listeners as attempts. */
  private readonly shutdown = unboundedListeners(new AbortController());
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private loop: Promise<void> | undefined;
  private indexed = false;
  /** Set by `nudge`, so one that comes while the loop is busy is not slept through. */
  private nudged = false;
  private wakeUp: (() => void) | undefined;
  /** The earliest due time this worker set itself: it wakes for it rather than the next poll. */
  private nextDueAt = Number.POSITIVE_INFINITY;

  /** `guard`: the deadline of each MongoDB operation, and where an outage is told. */
  constructor(
    private readonly plants: Collection<EventDocument>,
    private readonly options: DeliveryWorkerOptions,
    private readonly log: FastifyBaseLogger,
    private readonly guard?: OperationGuard,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** An event was just recorded here: look now rather than at the next poll. */
  nudge(): void {
    this.nudged = true;
    this.wakeUp?.();
  }

  /** Claims no more; gives attempts in flight `finishWithinMs`, then abandons and releases the rest. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
    const settled = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, this.options.finishWithinMs)))]);
    clearTimeout(timer);
    this.shutdown.abort();
    await settled;
  }

  private isStopping(): boolean {
    return this.stopping;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let retryInMs: number | undefined;
      try {
        await this.ensureIndex();
        this.nudged = false;
        if (this.nextDueAt <= Date.now()) this.nextDueAt = Number.POSITIVE_INFINITY;
        // Read through a method: stop() may have been called during an await.
        while (!this.isStopping() && this.inFlight.size < this.options.concurrency) {
          const claim = await this.claim();
          if (!claim) break;
          this.track(this.deliver(claim));
        }
      } catch (error) {
        if (!this.toldUnavailable(error)) this.log.warn({ err: error }, 'webhooks: could not claim due events; trying again shortly');
        retryInMs = this.options.pollMs;
      }
      await this.sleep(retryInMs);
    }
  }

  private async sleep(forMs?: number): Promise<void> {
    if (this.stopping || (this.nudged && forMs === undefined)) return;
    const full = this.inFlight.size >= this.options.concurrency;
    const untilDue = Math.max(0, this.nextDueAt - Date.now());
    const ms = forMs ?? (full ? this.options.pollMs : Math.min(this.options.pollMs, untilDue));
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.wakeUp = undefined;
  }

  /** An index MongoDB refuses is logged and left: claims still work, by scanning the collection. */
  private async ensureIndex(): Promise<void> {
    if (this.indexed) return;
    const indexes = [
      { spec: DUE_INDEX, without: 'due events are found by scanning the collection' },
      { spec: FAILED_INDEX, without: 'failed events are counted by scanning the collection' },
    ];
    for (const { spec, without } of indexes) {
      const { key, ...index } = spec;
      const options: CreateIndexesOptions & Abortable = { ...index, signal: this.guard?.signal() };
      try {
        await this.plants.createIndex(key, options, undefined);
      } catch (error) {
        if (isUnavailable(error)) throw error;
        this.log.error({ err: error }, `webhooks: could not create the index ${index.name}; ${without}`);
      }
    }
    this.indexed = true;
  }

  private async claim(): Promise<Claim | undefined> {
    const claimedAt = Date.now();
    const token = randomBytes(12).toString('base64url');
    const options: FindOneAndUpdateOptions & Abortable = {
      sort: { 'webhook.dueAt': 1 },
      returnDocument: 'after',
      projection: { name: 1, tag: 1, webhook: 1 },
      signal: this.guard?.signal(),
    };
    const document = await this.plants.findOneAndUpdate(
      { 'webhook.dueAt': { $lte: new Date(claimedAt) } },
      {
        $set: { 'webhook.dueAt': new Date(claimedAt + this.options.leaseMs), 'webhook.lease': { owner: this.owner, token } },
        $inc: { 'webhook.claims': 1 },
      },
      options,
    );
    return document ? { document, token, claimedAt } : undefined;
  }

  private track(task: Promise<void>): void {
    const tracked = task
      .catch((error: unknown) => {
        this.log.error({ err: error }, 'webhooks: delivering an event failed unexpectedly; its lease will run out and it will be retried');
      })
      .finally(() => {
        this.inFlight.delete(tracked);
        this.wakeUp?.();
      });
    this.inFlight.add(tracked);
  }

  private async deliver(claim: Claim): Promise<void> {
    const lease: HeldLease = { document: claim.document, token: claim.token, endsAt: claim.claimedAt + this.options.leaseMs };
    const renewal = setInterval(() => void this.renew(lease), this.options.leaseMs / 3);
    try {
      await this.work(claim, lease);
    } finally {
      clearInterval(renewal);
    }
  }

  private async work({ document, claimedAt }: Claim, lease: HeldLease): Promise<void> {
    const body = newPlantBody(document);
    const deliveries = document.webhook.deliveries.map((delivery) => ({ ...delivery }));
    const due = deliveries.flatMap((delivery, index) =>
      delivery.state === 'pending' && (delivery.nextAttemptAt?.getTime() ?? 0) <= claimedAt ? [index] : [],
    );
    let writes = Promise.resolve();
    const record = (changes: FieldChanges) => (writes = writes.then(() => this.write(lease, changes)));
    if (due.length === 0) return record(this.release(deliveries));
    let remaining = due.length;
    await Promise.all(
      due.map(async (index) => {
        const delivery = deliveries[index];
        if (!delivery) return;
        const outcome = await this.attempt(delivery, body, document.webhook.traceparent);
        const changes = this.apply(outcome, delivery, index, document);
        remaining -= 1;
        await record(remaining === 0 ? merge(changes, this.release(deliveries)) : changes);
      }),
    );
  }

  private attempt(delivery: WebhookDelivery, body: string, traceparent: string | undefined): Promise<AttemptOutcome> {
    const { secret, timeoutMs, observers } = this.options;
    const send = (headers?: Record<string, string>) =>
      sendWebhook({ url: delivery.url, id: delivery.id, body, secret, timeoutMs, shutdown: this.shutdown.signal, headers });
    if (observers?.aroundAttempt === undefined) return send();
    return observers.aroundAttempt({ url: delivery.url, webhookId: delivery.id, attempt: delivery.attempts + 1, traceparent }, send);
  }

  private apply(outcome: AttemptOutcome, delivery: WebhookDelivery, index: number, document: EventDocument): FieldChanges {
    const changes: FieldChanges = { $set: {}, $unset: {} };
    if (outcome.kind === 'abandoned') return changes;
    const now = new Date();
    const context = {
      webhookId: delivery.id,
      url: loggedUrl(delivery.url),
      plantId: idDigits(document._id),
      attempts: delivery.attempts + 1,
    };
    delivery.attempts += 1;
    delivery.lastAttemptAt = now;
    delete delivery.nextAttemptAt;
    if (outcome.kind === 'delivered') {
      delivery.state = 'delivered';
      delivery.deliveredAt = now;
      this.options.observers?.counted?.('delivered');
      this.log.debug({ ...context, status: outcome.status }, 'webhook delivered');
    } else if (outcome.kind === 'gone' || delivery.attempts >= this.options.maxAttempts) {
      delivery.state = 'failed';
      delivery.failedAt = now;
      delivery.lastError = outcome.error;
      this.options.observers?.counted?.('failed');
      this.log.error({ ...context, lastError: outcome.error }, 'webhook delivery failed: no further attempts');
    } else {
      const delayMs = retryDelayMs(delivery.attempts, this.options.retryBaseMs, outcome.retryAfterMs);
      delivery.nextAttemptAt = new Date(now.getTime() + delayMs);
      delivery.lastError = outcome.error;
      this.options.observers?.counted?.('retry');
      this.log.warn({ ...context, error: outcome.error, retryInMs: delayMs }, 'webhook attempt failed; it will be retried');
    }
    changes.$set[`webhook.deliveries.${index}`] = delivery;
    return changes;
  }

  /** Ends the claim: due again at the earliest pending attempt, or out of the due index when none is left. */
  private release(deliveries: readonly WebhookDelivery[]): FieldChanges {
    const pending = deliveries.filter((delivery) => delivery.state === 'pending').map((delivery) => delivery.nextAttemptAt?.getTime() ?? 0);
    if (pending.length === 0) return { $set: {}, $unset: { 'webhook.dueAt': '', 'webhook.lease': '' } };
    const dueAt = Math.min(...pending);
    this.nextDueAt = Math.min(this.nextDueAt, dueAt);
    return { $set: { 'webhook.dueAt': new Date(dueAt) }, $unset: { 'webhook.lease': '' } };
  }

  private async renew(lease: HeldLease): Promise<void> {
    const sentAt = Date.now();
    try {
      const { matchedCount } = await this.updateHeld(lease, { $set: { 'webhook.dueAt': new Date(sentAt + this.options.leaseMs) } });
      if (matchedCount === 1) lease.endsAt = Math.max(lease.endsAt, sentAt + this.options.leaseMs);
    } catch (error) {
      // The outcome writes tell the outage and say what it means; a renewal that fails only leaves the lease as it was.
      this.toldUnavailable(error);
    }
  }

  /**
   * Conditional on the claim's token, so an instance whose lease ran out cannot overwrite the next one's work. An
   * unacknowledged write is sent again while the lease holds, lest the next claimant repeat the attempt; it sets the same values.
   */
  private async write(lease: HeldLease, changes: FieldChanges): Promise<void> {
    const update: UpdateFilter<EventDocument> = {};
    if (Object.keys(changes.$set).length > 0) update.$set = changes.$set;
    if (Object.keys(changes.$unset).length > 0) update.$unset = changes.$unset;
    if (Object.keys(update).length === 0) return;
    const plantId = idDigits(lease.document._id);
    for (let tries = 1; ; tries += 1) {
      try {
        const { matchedCount } = await this.updateHeld(lease, update);
        // After a try that was not acknowledged, no match may also mean that try was applied and released the lease.
        if (matchedCount === 0 && tries === 1)
          this.log.warn(
            { plantId },
            'webhooks: the lease ran out before the outcome was recorded; another instance may repeat the attempt',
          );
        return;
      } catch (error) {
        this.toldUnavailable(error);
        if (this.shutdown.signal.aborted || Date.now() + RECORD_RETRY_MS >= lease.endsAt) {
          this.log.warn(
            { err: error, plantId, tries },
            'webhooks: could not record an outcome; the attempt will be repeated when the lease runs out',
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  private updateHeld({ document, token }: HeldLease, update: UpdateFilter<EventDocument>) {
    const options: UpdateOptions & Abortable = { signal: this.guard?.signal() };
    return this.plants.updateOne({ _id: document._id, 'webhook.lease.token': token }, update, options);
  }

  /** Tells the guard of a failure for want of MongoDB, which it logs once per outage; false for any other failure, or without a guard. */
  private toldUnavailable(error: unknown): boolean {
    if (this.guard === undefined || !isUnavailable(error)) return false;
    this.guard.unavailable(error);
    return true;
  }
}

function merge(a: FieldChanges, b: FieldChanges): FieldChanges {
  return { $set: { ...a.$set, ...b.$set }, $unset: { ...a.$unset, ...b.$unset } };
}

function unboundedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
