import type { Int64, NewPlant, Plant, PlantPatch, PlantStore, StoredPlant } from '../index.js';

/** The page a no-op list answers: as many plants as asked, made once. */
const PAGE: StoredPlant[] = Array.from({ length: 1000 }, (_, index) => ({ id: index + 1, name: 'Monstera', tag: 'tropical' }));

/**
 * A store that keeps nothing and answers at once, so a benchmark measures the HTTP and RPC
 * layers alone. It answers a new object per call, as a real store would.
 */
export class NoopPlantStore implements PlantStore {
  async create(plant: NewPlant): Promise<Plant> {
    return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
  }

  async list({ limit }: { limit: number; after: Int64 | undefined }): Promise<{ plants: StoredPlant[]; more: boolean }> {
    return { plants: PAGE.slice(0, limit).map((plant) => ({ ...plant })), more: true };
  }

  async get(id: Int64): Promise<StoredPlant> {
    return { id, name: 'Monstera', tag: 'tropical' };
  }

  async update(id: Int64, patch: PlantPatch): Promise<StoredPlant> {
    const tag = patch.tag === undefined ? 'tropical' : (patch.tag ?? undefined);
    return tag === undefined ? { id, name: patch.name ?? 'Monstera' } : { id, name: patch.name ?? 'Monstera', tag };
  }

  async delete(): Promise<boolean> {
    return true;
  }

  async ping(): Promise<void> {
    // Always ready.
  }
}
