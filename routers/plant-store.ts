import type { Int64 } from '../schemas/int64.js';
import type { NewPlant, Plant, StoredPlant } from '../schemas/plant.js';

/** Where plants are kept: the port the procedures depend on; server/ implements it over MongoDB. */
export interface PlantStore {
  /**
   * Stores a new plant and answers it as stored. Safe to retry: creating a plant that is
   * already stored with the same name and tag answers the stored plant and stores nothing.
   * @throws PlantConflictError when the id is taken by a plant with another name or tag.
   * @throws StoreUnavailableError when the database cannot be reached in time.
   */
  create(plant: NewPlant): Promise<Plant>;
  /**
   * Up to `limit` plants in ascending id order, after the id `after` when given; `more` tells
   * whether plants follow. Keyset paging: a plant stored while a client pages appears once.
   * @throws StoreUnavailableError
   */
  list(page: { limit: number; after: Int64 | undefined }): Promise<{ plants: StoredPlant[]; more: boolean }>;
  /** The plant with this id, or undefined. @throws StoreUnavailableError */
  get(id: Int64): Promise<StoredPlant | undefined>;
  /** Deletes the plant with this id; false when there was none. @throws StoreUnavailableError */
  delete(id: Int64): Promise<boolean>;
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

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(options?: ErrorOptions) {
    super('the plant database is unavailable, try again shortly', options);
  }
}
