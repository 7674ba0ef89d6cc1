import type { NewPlant, Plant, PlantStore } from '../index.js';

/**
 * A store that keeps nothing and answers at once, so a benchmark measures the HTTP and RPC
 * layers alone. It answers a new object per call, as a real store would.
 */
export class NoopPlantStore implements PlantStore {
  async create(plant: NewPlant): Promise<Plant> {
    return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
  }

  async ping(): Promise<void> {
    // Always ready.
  }
}
