export { createPlantStoreClient, trpcUrl, type PlantStoreClientOptions } from './create-client.js';
export { isPlantStoreError, type PlantStoreError } from './errors.js';
export { exactIntegerFetch, int64Transformer } from './int64-links.js';
export type { AppRouter, WithBigintIds } from './app-router.js';
