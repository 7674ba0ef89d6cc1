/**
 * The plant store's tRPC client: the ready one (`createPlantStoreClient`), the pieces an app
 * needs to compose its own links and keep ids exact (`int64Transformer`, `exactIntegerFetch`,
 * `trpcUrl`), and the router's type as a client sees it (`AppRouter`).
 */
export { createPlantStoreClient, trpcUrl, type PlantStoreClientOptions } from './create-client.js';
export { exactIntegerFetch, int64Transformer } from './int64-links.js';
export type { AppRouter, WithBigintIds } from './app-router.js';
