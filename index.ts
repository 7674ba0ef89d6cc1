/**
 * What TypeScript apps import from the plant store:
 * - over HTTP: `createPlantStoreClient({ url, token })` and the int64 link pieces (also at `plant-store/client`,
 *   without server code, and as the package `@plant-store/client`);
 * - in process: `createCaller(context)` with a context from `createContextFactory`;
 * - types: `AppRouter`, `Plant`, `NewPlant`, `ErrorBody`.
 */
export { appRouter, createCaller, type AppRouter } from './routers/app.js';
export { createContextFactory, type Context } from './routers/context.js';
export { createPlantStoreClient, exactIntegerFetch, int64Transformer, trpcUrl, type PlantStoreClientOptions } from './client/index.js';
export { buildApp, createAppCaller, type AppConfig } from './server/app.js';
export { loadConfig, type Config } from './server/config.js';
export { createTokenVerifier } from './server/auth/bearer-tokens.js';
export { MongoPlantStore } from './server/plants/mongo-plant-store.js';
export { PlantConflictError, StoreUnavailableError, type PlantStore } from './routers/plant-store.js';
export * from './schemas/index.js';
