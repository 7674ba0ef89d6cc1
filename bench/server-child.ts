/**
 * A server under test, run by the benchmark in its own process so the load generator does not
 * share its event loop. It listens on HOST and PORT (the launcher picks a free port and waits for
 * /healthz) and answers RSS and CPU-time queries over IPC, and profiles itself when asked, so the
 * product needs no debug route.
 */
import type { FastifyInstance } from 'fastify';
import { MongoClient } from 'mongodb';
import { buildApp, loadConfig, MongoPlantStore, type AppConfig, type PlantStore } from '../index.js';
import { buildBareBaselineApp, buildBaselineApp } from './baseline-app.js';
import {
  SERVER_KIND_ENV,
  STORE_KIND_ENV,
  type ChildMessage,
  type ParentMessage,
  type PeerKind,
  type ServerKind,
} from './child-protocol.js';
import { ChildProfiler } from './child-profiler.js';
import { NoopPlantStore } from './noop-plant-store.js';
import { startFastifyZodPeer } from './peers/fastify-zod.js';
import { startHonoPeer } from './peers/hono.js';
import { startOrpcPeer } from './peers/orpc.js';
import type { PeerServer, StartPeer } from './peers/peer-work.js';

const PEERS: Record<PeerKind, StartPeer> = {
  'peer-fastify-zod': startFastifyZodPeer,
  'peer-hono': startHonoPeer,
  'peer-orpc': startOrpcPeer,
};
const isPeer = (kind: ServerKind | undefined): kind is PeerKind => kind !== undefined && Object.hasOwn(PEERS, kind);

function readConfig(): AppConfig {
  const config = loadConfig(process.env);
  const { uri } = config.mongodb;
  if (uri === undefined) throw new Error('MONGODB_URI must be set');
  return { ...config, mongodb: { ...config.mongodb, uri } };
}

/**
 * The service and the baseline, in the service's app, use the app's own MongoDB store, as in
 * production; the reference route and the peers get one built here from the same public parts; or
 * all the no-op store. Returns the listening server.
 */
async function start(config: AppConfig): Promise<PeerServer> {
  const noop = process.env[STORE_KIND_ENV] !== 'mongo';
  const kind = process.env[SERVER_KIND_ENV] as ServerKind | undefined;
  const appOptions = noop ? { store: new NoopPlantStore() } : {};
  if (kind === 'service' || kind === 'service-metrics' || kind === 'service-tracing')
    return listen(await buildApp(config, appOptions), config);
  if (kind === 'baseline' || kind === 'baseline-copy') return listen(await buildBaselineApp(config, appOptions), config);
  if (kind !== 'bare' && !isPeer(kind))
    throw new Error(
      `${SERVER_KIND_ENV} must be one of service, service-metrics, service-tracing, baseline, baseline-copy, bare, ${Object.keys(PEERS).join(', ')}`,
    );
  const { store, close } = noop ? { store: new NoopPlantStore(), close: async () => undefined } : mongoStore(config);
  if (isPeer(kind)) {
    const server = await PEERS[kind](config, store);
    return { close: () => server.close().finally(close) };
  }
  const app = buildBareBaselineApp(config, store);
  app.addHook('onClose', close);
  return listen(app, config);
}

async function listen(app: FastifyInstance, config: AppConfig): Promise<PeerServer> {
  await app.listen({ host: config.host, port: config.port });
  return { close: () => app.close() };
}

function mongoStore(config: AppConfig): { store: PlantStore; close: () => Promise<void> } {
  const { uri, dbName, timeoutMs, writeConcern } = config.mongodb;
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs });
  return { store: new MongoPlantStore(client.db(dbName), writeConcern), close: () => client.close() };
}

const config = readConfig();
const server = await start(config);

const profiler = new ChildProfiler();
const send = (message: ChildMessage) => process.send?.(message);

async function answer(message: ParentMessage): Promise<ChildMessage> {
  switch (message.type) {
    case 'usage': {
      if (message.collectGarbage === true) globalThis.gc?.();
      const { user, system } = process.cpuUsage();
      const { rss, heapUsed } = process.memoryUsage();
      return { type: 'usage', rss, heapUsed, cpuMicros: user + system };
    }
    case 'profile-start':
      await profiler.start(message.kind, message.interval);
      return { type: 'profile-started' };
    case 'profile-stop':
      await profiler.stopInto(message.file);
      return { type: 'profile-written', file: message.file };
  }
}

process.on('message', (message: ParentMessage) => {
  answer(message).then(send, (error: unknown) => {
    // The parent waits for an answer it will not get and says so; the reason is here.
    console.error(error);
  });
});
// The parent going away (or closing the channel) ends the child; exiting writes any --cpu-prof.
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
