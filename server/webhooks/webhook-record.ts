import { randomBytes } from 'node:crypto';

/**
 * The event lives in the plant's own document, so the insert records it in the same atomic write: MongoDB has no
 * multi-document transaction without a replica set. Sparse indexes hold only due and failed events.
 */
export interface WebhookRecord {
  dueAt?: Date;
  lease?: WebhookLease;
  claims: number;
  deliveries: WebhookDelivery[];
  /** The create's W3C trace context: each delivery attempt's span links to it, whichever instance makes the attempt. */
  traceparent?: string;
  /** The plant as created: a change made before delivery does not change what the new-plant webhook sends. */
  plant?: { name: string; tag?: string };
}

export interface WebhookLease {
  owner: string;
  /** This claim's own token: every write of the claim's results is conditional on it. */
  token: string;
}

/** `discarded`: a failed delivery an operator gave up on for good (its receiver retired): neither listed nor replayed. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'discarded';

export interface WebhookDelivery {
  /** The Standard Webhooks `webhook-id`: the same on every attempt, the receiver's idempotency key. */
  id: string;
  url: string;
  state: DeliveryState;
  /** Attempts that got an answer or an error; an attempt abandoned at shutdown does not count. */
  attempts: number;
  nextAttemptAt?: Date;
  lastAttemptAt?: Date;
  /** What the last failed attempt got: `HTTP 503`, `timed out after 5000 ms`, `ECONNREFUSED`... */
  lastError?: string;
  deliveredAt?: Date;
  /** Unset when discarded, so the failed-events index and count drop it; `discardedAt` says when. */
  failedAt?: Date;
  discardedAt?: Date;
}

export const DUE_INDEX = { key: { 'webhook.dueAt': 1 }, name: 'webhook_dueAt', sparse: true } as const;
export const FAILED_INDEX = { key: { 'webhook.deliveries.failedAt': 1 }, name: 'webhook_deliveries_failedAt', sparse: true } as const;

export function newWebhookRecord(
  urls: readonly string[],
  now: Date,
  plant: { name: string; tag?: string | undefined },
  traceparent?: string,
): WebhookRecord {
  return {
    dueAt: now,
    claims: 0,
    deliveries: urls.map((url) => newDelivery(url, now)),
    plant: { name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) },
    ...(traceparent !== undefined && { traceparent }),
  };
}

/** A delivery to `url`, due at `now`, with its own webhook-id. */
export function newDelivery(url: string, now: Date): WebhookDelivery {
  return { id: newMessageId(), url, state: 'pending', attempts: 0, nextAttemptAt: now };
}

/** `msg_` and 128 random bits, as Standard Webhooks ids look. */
function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}
