import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type {
  Abortable,
  Collection,
  CreateIndexesOptions,
  DeleteOptions,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  UpdateFilter,
  UpdateOptions,
} from 'mongodb';
import type { OperationGuard } from '../db/mongo-database.js';
import { isUnavailable } from '../db/mongo-errors.js';
import { idDigits, type PlantAsRead } from './event-body.js';
import { loggedUrl } from '../logs/logged-url.js';
import { retryDelayMs } from './retry-schedule.js';
import { sendWebhook, type AttemptOutcome } from './send-webhook.js';
import type { WebhookSecret } from './webhook-config.js';
import type { DueAttempt, FieldChanges, Outbox, OutboxDocument, Release } from './outbox.js';
import type { WebhookRecord } from './webhook-record.js';

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

interface Claim<T> {
  document: T;
  token: string;
  claimedAt: number;
}

/** A claim being worked on: its lease's end as this instance knows it, moved on by each renewal MongoDB acknowledged. */
interface HeldLease<T> {
  document: T;
  token: string;
  /** Counted from before the write that set it was sent, so never later than the end MongoDB holds. */
  endsAt: number;
}

const RECORD_RETRY_MS = 100;

/**
 * Delivers recorded events, driven from MongoDB: claims one due event at a time under a lease and a token, renewing the
 * lease while it works, so a slow attempt does not let another instance repeat a delivery; a dead instance's claim lapses.
 */
export class DeliveryWorker<T extends OutboxDocument> {
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
    private readonly plants: Collection<T>,
    private readonly outbox: Outbox<T>,
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
    for (const { spec, without } of this.outbox.indexes) {
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

  private async claim(): Promise<Claim<T> | undefined> {
    const claimedAt = Date.now();
    const token = randomBytes(12).toString('base64url');
    const { field, projection } = this.outbox;
    const options: FindOneAndUpdateOptions & Abortable = {
      sort: { [`${field}.dueAt`]: 1 },
      returnDocument: 'after',
      projection,
      signal: this.guard?.signal(),
    };
    const document = await this.plants.findOneAndUpdate(
      { [`${field}.dueAt`]: { $lte: new Date(claimedAt) } } as Filter<T>,
      {
        $set: { [`${field}.dueAt`]: new Date(claimedAt + this.options.leaseMs), [`${field}.lease`]: { owner: this.owner, token } },
        $inc: { [`${field}.claims`]: 1 },
      } as UpdateFilter<T>,
      options,
    );
    return document ? { document: document as T, token, claimedAt } : undefined;
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

  private async deliver(claim: Claim<T>): Promise<void> {
    const lease: HeldLease<T> = { document: claim.document, token: claim.token, endsAt: claim.claimedAt + this.options.leaseMs };
    const renewal = setInterval(() => void this.renew(lease), this.options.leaseMs / 3);
    try {
      await this.work(claim, lease);
    } finally {
      clearInterval(renewal);
    }
  }

  private async work({ document, claimedAt }: Claim<T>, lease: HeldLease<T>): Promise<void> {
    const working = this.outbox.copy(document);
    const due = this.outbox.due(working, claimedAt);
    let writes = Promise.resolve();
    const record = (changes: FieldChanges) =>
      (writes = writes.then(async () => {
        await this.write(lease, changes);
      }));
    if (due.length === 0) return this.end(lease, working, undefined);
    let remaining = due.length;
    await Promise.all(
      due.map(async (attempt) => {
        const outcome = await this.attempt(attempt);
        const changes = this.apply(outcome, attempt, document._id);
        remaining -= 1;
        if (remaining > 0) return record(changes);
        await writes;
        await this.end(lease, working, changes);
      }),
    );
  }

  /**
   * Records the last outcome and releases the claim, in one write when the release needs no more than the lease. A
   * release conditional on more (no event recorded since the claim read the document) that finds the document changed
   * records the outcome alone, reads the document again and releases from what it holds now.
   */
  private async end(lease: HeldLease<T>, working: T, last: FieldChanges | undefined): Promise<void> {
    let release = this.release(this.outbox.release(working));
    if (!('remove' in release) && release.when === undefined) {
      await this.write(lease, merge(last, release.changes));
      return;
    }
    if (last) await this.write(lease, last);
    while (Date.now() < lease.endsAt) {
      const matched =
        'remove' in release ? await this.removeHeld(lease, release.remove) : await this.write(lease, release.changes, release.when);
      if (matched !== false) return;
      const now = await this.readHeld(lease);
      if (!now) return;
      release = this.release(this.outbox.release(this.outbox.copy(now)));
    }
  }

  /** Keeps the earliest due time this worker set itself, so it wakes for it. */
  private release(release: Release): Release {
    if (!('remove' in release) && release.dueAt !== undefined) this.nextDueAt = Math.min(this.nextDueAt, release.dueAt);
    return release;
  }

  private attempt({ delivery, body, traceparent }: DueAttempt): Promise<AttemptOutcome> {
    const { secret, timeoutMs, observers } = this.options;
    const send = (headers?: Record<string, string>) =>
      sendWebhook({ url: delivery.url, id: delivery.id, body, secret, timeoutMs, shutdown: this.shutdown.signal, headers });
    if (observers?.aroundAttempt === undefined) return send();
    return observers.aroundAttempt({ url: delivery.url, webhookId: delivery.id, attempt: delivery.attempts + 1, traceparent }, send);
  }

  private apply(outcome: AttemptOutcome, { delivery, path }: DueAttempt, plantId: T['_id']): FieldChanges {
    const changes: FieldChanges = { $set: {}, $unset: {} };
    if (outcome.kind === 'abandoned') return changes;
    const now = new Date();
    const context = {
      webhookId: delivery.id,
      url: loggedUrl(delivery.url),
      plantId: idDigits(plantId),
      outbox: this.outbox.name,
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
    changes.$set[path] = delivery;
    return changes;
  }

  private async renew(lease: HeldLease<T>): Promise<void> {
    const sentAt = Date.now();
    try {
      const renewal = { $set: { [`${this.outbox.field}.dueAt`]: new Date(sentAt + this.options.leaseMs) } } as UpdateFilter<T>;
      const { matchedCount } = await this.updateHeld(lease, renewal);
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
  private async write(lease: HeldLease<T>, changes: FieldChanges, when?: Record<string, unknown>): Promise<boolean | undefined> {
    const update: Record<string, unknown> = {};
    if (Object.keys(changes.$set).length > 0) update.$set = changes.$set;
    if (Object.keys(changes.$unset).length > 0) update.$unset = changes.$unset;
    if (Object.keys(update).length === 0) return undefined;
    return this.held(lease, async (tries) => {
      const { matchedCount } = await this.updateHeld(lease, update, when);
      // After a try that was not acknowledged, no match may also mean that try was applied and released the lease.
      if (matchedCount === 0 && tries === 1 && when === undefined) this.leaseLost(lease);
      return matchedCount === 1;
    });
  }

  private removeHeld(lease: HeldLease<T>, when: Record<string, unknown>): Promise<boolean | undefined> {
    const options: DeleteOptions & Abortable = { signal: this.guard?.signal() };
    return this.held(lease, async () => {
      const { deletedCount } = await this.plants.deleteOne({ ...this.heldFilter(lease), ...when } as Filter<T>, options);
      return deletedCount === 1;
    });
  }

  /**
   * The document while the lease is still this claim's; undefined once it is not, which after a release whose
   * acknowledgement was lost may also mean that the release was applied.
   */
  private async readHeld(lease: HeldLease<T>): Promise<T | undefined> {
    const options: FindOptions & Abortable = { projection: this.outbox.projection, signal: this.guard?.signal() };
    const read = await this.held(lease, async () => (await this.plants.findOne(this.heldFilter(lease) as Filter<T>, options)) ?? undefined);
    return read as T | undefined;
  }

  /** The claim's token is gone: its lease ran out, or, while it still held, the plant was deleted and its record with it. */
  private leaseLost(lease: HeldLease<T>): void {
    const context = { plantId: idDigits(lease.document._id), outbox: this.outbox.name };
    if (Date.now() < lease.endsAt) this.log.debug(context, 'webhooks: the plant was deleted while its event was being delivered');
    else this.log.warn(context, 'webhooks: the lease ran out before the outcome was recorded; another instance may repeat the attempt');
  }

  /** Runs one write of the claim, again while the lease holds when MongoDB does not answer; undefined when it never did. */
  private async held<R>(lease: HeldLease<T>, operation: (tries: number) => Promise<R>): Promise<R | undefined> {
    const plantId = idDigits(lease.document._id);
    for (let tries = 1; ; tries += 1) {
      try {
        return await operation(tries);
      } catch (error) {
        this.toldUnavailable(error);
        if (this.shutdown.signal.aborted || Date.now() + RECORD_RETRY_MS >= lease.endsAt) {
          this.log.warn(
            { err: error, plantId, tries },
            'webhooks: could not record an outcome; the attempt will be repeated when the lease runs out',
          );
          return undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  private heldFilter({ document, token }: HeldLease<T>): Record<string, unknown> {
    return { _id: document._id, [`${this.outbox.field}.lease.token`]: token };
  }

  private updateHeld(lease: HeldLease<T>, update: UpdateFilter<T>, when?: Record<string, unknown>) {
    const options: UpdateOptions & Abortable = { signal: this.guard?.signal() };
    return this.plants.updateOne({ ...this.heldFilter(lease), ...when } as Filter<T>, update, options);
  }

  /** Tells the guard of a failure for want of MongoDB, which it logs once per outage; false for any other failure, or without a guard. */
  private toldUnavailable(error: unknown): boolean {
    if (this.guard === undefined || !isUnavailable(error)) return false;
    this.guard.unavailable(error);
    return true;
  }
}

function merge(a: FieldChanges | undefined, b: FieldChanges): FieldChanges {
  return { $set: { ...a?.$set, ...b.$set }, $unset: { ...a?.$unset, ...b.$unset } };
}

function unboundedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
