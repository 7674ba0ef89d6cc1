// The HTTP client, the in-process caller, the types, and what runs the service in a process of one's own.
export { appRouter, createCaller, type AppRouter } from './routers/app.js';
export { createContextFactory, type Context } from './routers/context.js';
export { createPlantStoreClient, exactIntegerFetch, int64Transformer, trpcUrl, type PlantStoreClientOptions } from './client/index.js';
export { buildApp, createAppCaller, type AppConfig, type AppOptions } from './server/app.js';
export { loadConfig, type Config } from './server/config.js';
export { createTokenVerifier } from './server/auth/bearer-tokens.js';
export { MongoPlantStore, PLANTS_COLLECTION, TAG_INDEX, type PlantDocument } from './server/plants/mongo-plant-store.js';
export { DUE_INDEX } from './server/webhooks/webhook-record.js';
export { resolveMongo, type MongoSource } from './server/dev/mongo-source.js';
export {
  ChangeQueueFullError,
  PlantConflictError,
  PlantNotFoundError,
  PlantPreconditionFailedError,
  StoreUnavailableError,
  type PlantStore,
  type Revised,
} from './routers/plant-store.js';
export { entityTagOf, failedCondition, type EntityTagCondition, type FailedCondition, type Precondition } from './routers/entity-tags.js';
export { int64Json } from './schemas/int64-json.js';
export * from './schemas/index.js';
