import type { Int64 } from '../schemas/int64.js';
import type { NewPlant, Plant, PlantPatch, StoredPlant } from '../schemas/plant.js';
import type { ConditionHeader, FailedCondition, Precondition } from './entity-tags.js';

/** An absent revision counts as 0: plants stored before revisions were kept have none. */
export type Revised<T> = T & { revision?: number };

export interface PlantStore {
  /** Safe to retry: the same plant again answers the stored one and stores nothing; another under its id is a conflict. */
  create(plant: NewPlant): Promise<Revised<Plant>>;
  /**
   * Keyset paging: a plant stored while a client pages appears once. Once `signal` aborts, no one waits for the page:
   * the store may stop and reject.
   */
  list(page: {
    limit: number;
    after: Int64 | undefined;
    tag?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<{ plants: StoredPlant[]; more: boolean }>;
  get(id: Int64): Promise<Revised<StoredPlant> | undefined>;
  /**
   * A patch that changes nothing stores nothing. `precondition` is checked atomically with the write; a missing plant
   * is not found whatever it says.
   */
  update(id: Int64, patch: PlantPatch, precondition?: Precondition): Promise<Revised<StoredPlant>>;
  /** `precondition` is checked atomically with the delete. */
  delete(id: Int64, precondition?: Precondition): Promise<boolean>;
  ping(): Promise<void>;
}

export class PlantConflictError extends Error {
  override name = 'PlantConflictError';
  constructor(readonly id: Int64) {
    super(`a plant with id ${id} already exists with a different name or tag`);
  }
}

export class PlantNotFoundError extends Error {
  override name = 'PlantNotFoundError';
  constructor(readonly id: Int64) {
    super(`no plant with id ${id}`);
  }
}

const preconditionMessages: Record<FailedCondition, (id: Int64) => string> = {
  'If-Match': (id) => `the plant with id ${id} has changed: its entity tag matches none of If-Match; read it again and retry`,
  weakIfMatch: (id) =>
    `If-Match names the entity tag of the plant with id ${id} only as weak (W/), and If-Match compares strongly: ` +
    'send the ETag as the plant was answered with, without W/',
  emptyIfMatch: (id) =>
    `If-Match names no entity tag, so the plant with id ${id} cannot match it: send the ETag the plant was answered with`,
  'If-None-Match': (id) =>
    `the plant with id ${id} exists with an entity tag If-None-Match names (* names any): the request was not carried out`,
};

export class PlantPreconditionFailedError extends Error {
  override name = 'PlantPreconditionFailedError';
  constructor(
    readonly id: Int64,
    readonly condition: FailedCondition = 'If-Match',
  ) {
    super(preconditionMessages[condition](id));
  }

  get header(): ConditionHeader {
    return this.condition === 'If-None-Match' ? 'If-None-Match' : 'If-Match';
  }
}

/** The plant's change events wait for their receivers, as many as the store keeps: no further change until some go. */
export class ChangeQueueFullError extends Error {
  override name = 'ChangeQueueFullError';
  constructor(
    readonly id: Int64,
    /** When the next delivery is due, the soonest some may go. */
    readonly retryAfterS: number,
  ) {
    super(
      `the plant with id ${id} has as many change events waiting for delivery as it can keep: try again once its ` +
        `webhook receivers take them`,
    );
  }
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(options?: ErrorOptions) {
    super('the plant database is unavailable, try again shortly', options);
  }
}

/** The database refuses how the store is configured to write: no write can succeed until the configuration changes. */
export class StoreMisconfiguredError extends Error {
  override name = 'StoreMisconfiguredError';
}
