import { randomBytes } from 'node:crypto';

/**
 * The new-plant event, kept inside the plant's own document (field `webhook`), so the insert that
 * stores the plant records its event in the same atomic write: MongoDB has no multi-document
 * transaction without a replica set, and a single-document write is atomic everywhere.
 *
 * ```
 * webhook: {
 *   dueAt: Date,                 // while anything is pending: when the worker should look again
 *   lease: { owner, token },     // while an instance works on it (dueAt is then the lease's end)
 *   claims: 3,                   // how many times an instance took it
 *   traceparent: '00-…-…-01',    // the create's trace context, when the service traces
 *   deliveries: [                // one per URL configured when the plant was created
 *     { id: 'msg_…', url, state: 'pending' | 'delivered' | 'failed', attempts, nextAttemptAt,
 *       lastAttemptAt, lastError, deliveredAt, failedAt },
 *   ],
 * }
 * ```
 *
 * The worker finds due events through a sparse index on `webhook.dueAt`, which a document leaves
 * when nothing is pending any more; the metrics count failed events through another, on the
 * deliveries' `failedAt`, which only a delivery given up on (and not yet replayed) has. Each delivery is written by its array position
 * (`webhook.deliveries.0.state`), which every MongoDB supports; no positional operator is needed.
 */
export interface WebhookRecord {
  dueAt?: Date;
  lease?: WebhookLease;
  claims: number;
  deliveries: WebhookDelivery[];
  /**
   * The W3C trace context of the create that recorded the event, when the service traces: the span
   * of each delivery attempt links to it, whichever instance makes the attempt.
   */
  traceparent?: string;
}

export interface WebhookLease {
  /** Which instance holds the claim (host, pid and a random part), for people reading the data. */
  owner: string;
  /** This claim's own token: every write of the claim's results is conditional on it. */
  token: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  /** The Standard Webhooks `webhook-id`: the same on every attempt, the receiver's idempotency key. */
  id: string;
  url: string;
  state: DeliveryState;
  /** Attempts that got an answer or an error; an attempt abandoned at shutdown does not count. */
  attempts: number;
  /** When the next attempt is due; only while pending. */
  nextAttemptAt?: Date;
  lastAttemptAt?: Date;
  /** What the last failed attempt got: `HTTP 503`, `timed out after 5000 ms`, `ECONNREFUSED`... */
  lastError?: string;
  deliveredAt?: Date;
  failedAt?: Date;
}

/** The field of the plant document the record lives in, and the index the worker reads it by. */
export const WEBHOOK_FIELD = 'webhook';
export const DUE_INDEX = { key: { 'webhook.dueAt': 1 }, name: 'webhook_dueAt', sparse: true } as const;
export const FAILED_INDEX = { key: { 'webhook.deliveries.failedAt': 1 }, name: 'webhook_deliveries_failedAt', sparse: true } as const;

/** A new event: one pending delivery per URL, each with its own stable id, all due at once. */
export function newWebhookRecord(urls: readonly string[], now: Date, traceparent?: string): WebhookRecord {
  return {
    dueAt: now,
    claims: 0,
    deliveries: urls.map((url) => ({ id: newMessageId(), url, state: 'pending', attempts: 0, nextAttemptAt: now })),
    ...(traceparent !== undefined && { traceparent }),
  };
}

/** `msg_` and 128 random bits, as Standard Webhooks ids look. */
function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}
