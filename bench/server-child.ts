/**
 * A server under test, run by the benchmark in its own process so the load generator does not
 * share its event loop. It listens on a free loopback port, says so over IPC, and answers RSS
 * and CPU-time queries over IPC too, so the product needs no debug route.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppConfig, type AppOverrides } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { createMongoClient } from '../server/db/mongo-client.js';
import { MongoPlantStore } from '../server/plants/mongo-plant-store.js';
import type { PlantStore } from '../server/plants/plant-store.js';
import { buildBareBaselineApp, buildBaselineApp } from './baseline-app.js';
import { SERVER_KIND_ENV, STORE_KIND_ENV, type ChildMessage, type ParentMessage } from './child-protocol.js';
import { NoopPlantStore } from './noop-plant-store.js';

function readConfig(): AppConfig {
  const config = loadConfig(process.env);
  const { uri } = config.mongodb;
  if (uri === undefined) throw new Error('MONGODB_URI must be set');
  return { ...config, mongodb: { ...config.mongodb, uri } };
}

/** The reference's MongoDB store, built as the service builds its own (the baseline, built on `buildAppBase`, has the service's). */
function mongoStore(config: AppConfig): PlantStore {
  const client = createMongoClient(config.mongodb);
  const { w, journal } = config.mongodb.writeConcern;
  return new MongoPlantStore(client.db(config.mongodb.dbName), { w, journal });
}

async function build(config: AppConfig): Promise<FastifyInstance> {
  const noop = process.env[STORE_KIND_ENV] !== 'mongo';
  const kind = process.env[SERVER_KIND_ENV];
  const overrides: AppOverrides = noop ? { store: new NoopPlantStore() } : {};
  if (kind === 'service') return buildApp(config, overrides);
  if (kind === 'baseline') return buildBaselineApp(config, overrides);
  const store = overrides.store ?? mongoStore(config);
  return buildBareBaselineApp({ tokens: config.apiTokens, store, logLevel: config.logLevel, bodyLimit: config.http.bodyLimit });
}

const config = readConfig();
const app = await build(config);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('expected a TCP address');

const send = (message: ChildMessage) => process.send?.(message);
// The only question the parent asks (ParentMessage) is for the usage figures.
process.on('message', ({ collectGarbage = false }: ParentMessage) => {
  if (collectGarbage) globalThis.gc?.();
  const { user, system } = process.cpuUsage();
  const { rss, heapUsed } = process.memoryUsage();
  send({ type: 'usage', rss, heapUsed, cpuMicros: user + system });
});
// The parent going away (or closing the channel) ends the child; exiting writes any --cpu-prof.
process.on('disconnect', () => {
  void app.close().then(() => process.exit(0));
});
send({ type: 'ready', port: address.port });
