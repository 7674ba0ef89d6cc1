import type { Int64 } from '../schemas/int64.js';
import type { NewPlant, Plant, PlantPatch, StoredPlant } from '../schemas/plant.js';
import type { EntityTagCondition } from './entity-tags.js';

/**
 * A plant as the store answers it, with its revision: how many effective changes it has had since
 * it was created (0 when absent, as for plants stored before revisions were kept).
 */
export type Revised<T> = T & { revision?: number };

/** Where plants are kept: the port the procedures depend on; server/ implements it over MongoDB. */
export interface PlantStore {
  /**
   * Stores a new plant and answers it as stored. Safe to retry: creating a plant that is
   * already stored with the same name and tag answers the stored plant and stores nothing.
   * @throws PlantConflictError when the id is taken by a plant with another name or tag.
   * @throws StoreUnavailableError when the database cannot be reached in time.
   */
  create(plant: NewPlant): Promise<Revised<Plant>>;
  /**
   * Up to `limit` plants in ascending id order, after the id `after` when given; `more` tells
   * whether plants follow. Keyset paging: a plant stored while a client pages appears once.
   * @throws StoreUnavailableError
   */
  list(page: { limit: number; after: Int64 | undefined; tag?: string | undefined }): Promise<{ plants: StoredPlant[]; more: boolean }>;
  /** The plant with this id, or undefined. @throws StoreUnavailableError */
  get(id: Int64): Promise<Revised<StoredPlant> | undefined>;
  /**
   * Applies `patch` to the plant with this id and answers it as stored now. A patch that changes
   * nothing stores nothing (the revision stays). With `ifMatch`, the change is made only while the
   * plant's entity tag matches, checked atomically with the write.
   * @throws PlantNotFoundError when there is no such plant (whatever `ifMatch` says).
   * @throws PlantPreconditionFailedError when the plant's entity tag does not match `ifMatch`.
   * @throws StoreUnavailableError
   */
  update(id: Int64, patch: PlantPatch, ifMatch?: EntityTagCondition): Promise<Revised<StoredPlant>>;
  /**
   * Deletes the plant with this id; false when there was none. With `ifMatch`, only while its
   * entity tag matches, checked atomically with the delete.
   * @throws PlantPreconditionFailedError
   * @throws StoreUnavailableError
   */
  delete(id: Int64, ifMatch?: EntityTagCondition): Promise<boolean>;
  /** Resolves when the database answers. @throws StoreUnavailableError */
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

export class PlantPreconditionFailedError extends Error {
  override name = 'PlantPreconditionFailedError';
  constructor(readonly id: Int64) {
    super(`the plant with id ${id} has changed: its entity tag matches none of If-Match; read it again and retry`);
  }
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(options?: ErrorOptions) {
    super('the plant database is unavailable, try again shortly', options);
  }
}
