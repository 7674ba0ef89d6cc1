import type { Int64 } from '../schemas/int64.js';
import type { NewPlant, Plant } from '../schemas/plant.js';

/** Where plants are kept: the port the procedures depend on; server/ implements it over MongoDB. */
export interface PlantStore {
  /**
   * Stores a new plant and answers it as stored. Safe to retry: creating a plant that is
   * already stored with the same name and tag answers the stored plant and stores nothing.
   * @throws PlantConflictError when the id is taken by a plant with another name or tag.
   * @throws StoreUnavailableError when the database cannot be reached in time.
   */
  create(plant: NewPlant): Promise<Plant>;
  /** Resolves when the database answers. @throws StoreUnavailableError */
  ping(): Promise<void>;
}

export class PlantConflictError extends Error {
  override name = 'PlantConflictError';
  constructor(readonly id: Int64) {
    super(`a plant with id ${id} already exists with a different name or tag`);
  }
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(options?: ErrorOptions) {
    super('the plant database is unavailable, try again shortly', options);
  }
}
