import Fastify, { type FastifyInstance, type FastifyLoggerOptions } from 'fastify';
import { createCaller } from '../routers/app.js';
import type { PlantStore } from '../routers/plant-store.js';
import type { Config } from './config.js';
import { fastifyOptions } from './fastify-options.js';
import { apiPlugin } from './plugins/api.js';
import { authPlugin } from './plugins/auth.js';
import { docsPlugin } from './plugins/docs.js';
import { healthPlugin } from './plugins/health.js';
import { httpPlugin } from './plugins/http.js';
import { mongodbPlugin } from './plugins/mongodb.js';
import { givenPlantStorePlugin, mongoPlantStorePlugin } from './plugins/plant-store.js';
import { telemetryPlugin } from './plugins/telemetry.js';
import { webhooksPlugin } from './plugins/webhooks.js';

/** What the app needs from configuration: a MongoDB to use and at least one token. */
export type AppConfig = Omit<Config, 'mongodb'> & { mongodb: Config['mongodb'] & { uri: string } };

export interface AppOptions {
  /** A store of your own in place of MongoDB (tests, benchmarks of the HTTP layers, another database). */
  store?: PlantStore;
  logStream?: FastifyLoggerOptions['stream'];
}

/** Telemetry first so that it sees every route; the store before what serves it; shared parts before any route. */
export async function buildApp(config: AppConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(config, options.logStream));
  await app.register(telemetryPlugin, { metrics: config.metrics, tracing: config.tracing });
  if (options.store) {
    await app.register(givenPlantStorePlugin, { store: options.store });
  } else {
    await app.register(mongodbPlugin, config.mongodb);
    await app.register(webhooksPlugin, { webhooks: config.webhooks, mongodb: config.mongodb });
    await app.register(mongoPlantStorePlugin, config.mongodb);
  }
  await app.register(httpPlugin, { corsOrigins: config.corsOrigins, http: config.http });
  await app.register(healthPlugin);
  await app.register(docsPlugin);
  const { apiTokens, apiTokenHashes, jwt } = config;
  await app.register(authPlugin, { apiTokens, apiTokenHashes, jwt });
  await app.register(apiPlugin, {
    fastPath: config.http.fastPath,
    maxBatchSize: config.http.maxBatchSize,
    authFailureLimit: config.authFailureLimit,
  });
  return app;
}

/** What the procedures create in process is recorded for webhooks like any create over HTTP. */
export function createAppCaller(app: FastifyInstance, authorization: string | undefined) {
  if (!app.hasDecorator('apiContext')) throw new Error('createAppCaller takes an app made by buildApp');
  return createCaller(app.apiContext(authorization));
}
