import type { Long } from 'mongodb';
import type { WebhookDelivery } from './webhook-record.js';

/** A document holding an outbox under `field`: `dueAt`, `lease` and `claims` there, its events beside them. */
export interface OutboxDocument {
  _id: Long | bigint | number;
}

export interface FieldChanges {
  $set: Record<string, unknown>;
  $unset: Record<string, ''>;
}

/** One attempt a claim makes: a delivery (a copy the worker updates in place), where it is stored, and what is sent. */
export interface DueAttempt {
  delivery: WebhookDelivery;
  path: string;
  body: string;
  traceparent: string | undefined;
}

/**
 * How a claim ends: an update that sets the next due time (`when`: what else the document must still hold for it to
 * be right), or the document's removal when nothing is left for it to keep.
 */
export type Release =
  { changes: FieldChanges; when?: Record<string, unknown>; dueAt: number | undefined } | { remove: Record<string, unknown> };

/** What differs between the outboxes one worker drives: where they live, what is due, how a claim is released. */
export interface Outbox<T extends OutboxDocument> {
  field: string;
  /** The name the log lines give the outbox. */
  name: string;
  projection: Record<string, 1>;
  indexes: readonly { spec: { key: Record<string, 1>; name: string; sparse: boolean }; without: string }[];
  /** A copy whose deliveries the claim may change, the rest shared. */
  copy(document: T): T;
  /** The attempts due at `now`, on deliveries of `document` (a copy). */
  due(document: T, now: number): DueAttempt[];
  /** The end of the claim, from the document as the claim's outcomes left it. */
  release(document: T): Release;
}
