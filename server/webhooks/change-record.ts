import { newDelivery, type WebhookDelivery, type WebhookLease } from './webhook-record.js';

export type ChangeType = 'plant.created' | 'plant.updated' | 'plant.deleted';

/**
 * The plant's change events, queued in its own document so that the write that changes the plant appends its event
 * (no transaction needed). One claim per document at a time keeps each plant's events in order.
 */
export interface ChangeQueue {
  dueAt?: Date;
  lease?: WebhookLease;
  claims: number;
  /** How many events were ever appended: a release is conditional on it, so it cannot drop or strand a newer one. */
  recorded: number;
  events: ChangeEvent[];
}

export interface ChangeEvent {
  type: ChangeType;
  /** When the change was made: the event's `timestamp`. */
  at: Date;
  /** The plant as stored after the change; absent for a delete, whose data is the id alone. */
  plant?: { name: string; tag?: string };
  deliveries: WebhookDelivery[];
}

export const CHANGE_DUE_INDEX = { key: { 'changes.dueAt': 1 }, name: 'changes_dueAt', sparse: true } as const;

export function newChangeEvent(
  type: ChangeType,
  at: Date,
  urls: readonly string[],
  plant?: { name: string; tag?: string | undefined },
): ChangeEvent {
  const snapshot = plant && { name: plant.name, ...(plant.tag !== undefined && { tag: plant.tag }) };
  return { type, at, ...(snapshot && { plant: snapshot }), deliveries: urls.map((url) => newDelivery(url, at)) };
}

/** An event still waiting for one of its URLs; one whose deliveries all ended (delivered or failed) is done. */
export function isPending(event: ChangeEvent): boolean {
  return event.deliveries.some((delivery) => delivery.state === 'pending');
}
