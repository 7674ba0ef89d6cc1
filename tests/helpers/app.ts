import type { FastifyInstance, InjectOptions } from 'fastify';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp, type AppConfig, type AppOptions } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { PLANTS_COLLECTION, type PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { uniqueDbName } from './mongo.js';

export const TEST_TOKEN = 'test-token-Zq8Xw2';
export const OTHER_TOKEN = 'test-token-other-7Hk';

/** The test MongoDB (from the global setup) with a database of this app's own, so files run in parallel. */
export function testMongoUri(): string {
  const uri = new ConnectionString(inject('mongoUri'));
  uri.pathname = `/${uniqueDbName('plantstore')}`;
  return uri.toString();
}

/**
 * Configuration as the service would read it from these environment variables. FAST_PATH comes
 * from the test run's own environment, so CI runs every test with the fast path and without.
 * MongoDB's deadline is longer than the service's default: every file of the run shares one test
 * MongoDB on a few CPUs, and its pauses there are the machine's, not what a test is about; the tests
 * of deadlines set their own.
 */
export function testConfig(env: Record<string, string> = {}): AppConfig {
  const uri = env.MONGODB_URI ?? testMongoUri();
  const config = loadConfig({
    API_TOKENS: `${TEST_TOKEN},${OTHER_TOKEN}`,
    LOG_LEVEL: 'silent',
    MONGODB_URI: uri,
    MONGODB_TIMEOUT_MS: '10000',
    RESPONSE_TIMEOUT_MS: '25000',
    FAST_PATH: process.env.FAST_PATH,
    ...env,
  });
  return { ...config, mongodb: { ...config.mongodb, uri } };
}

export interface TestApp {
  app: FastifyInstance;
  /** The app's database, through a connection of the test's own. */
  db: Db;
  /** The app's plants collection, read through that connection. */
  plants: Collection<PlantDocument>;
  close(): Promise<void>;
}

export async function startTestApp(options: { env?: Record<string, string>; overrides?: AppOptions } = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const app = await buildApp(config, options.overrides);
  const client = new MongoClient(config.mongodb.uri);
  const db = client.db(config.mongodb.dbName);
  return {
    app,
    db,
    plants: db.collection<PlantDocument>(PLANTS_COLLECTION),
    close: async () => {
      await app.close();
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

export const authHeaders = (token = TEST_TOKEN) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

/** `POST /plants` with a valid token; `body` is sent as given when a string, else as JSON. */
export function postPlant(app: FastifyInstance, body: unknown, headers: InjectOptions['headers'] = authHeaders()) {
  return app.inject({
    method: 'POST',
    url: '/plants',
    headers,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Registers beforeAll/afterAll hooks giving the calling file a test app listening on a free
 * loopback port, for clients that need a real server (the tRPC client, browsers, sockets).
 */
export function useListeningTestApp(): { readonly testApp: TestApp; readonly url: string } {
  let started: { testApp: TestApp; url: string } | undefined;
  beforeAll(async () => {
    const testApp = await startTestApp();
    started = { testApp, url: await testApp.app.listen({ host: '127.0.0.1', port: 0 }) };
  });
  afterAll(async () => {
    await started?.testApp.close();
  });
  const get = () => {
    if (!started) throw new Error('useListeningTestApp: used outside a test');
    return started;
  };
  return {
    get testApp() {
      return get().testApp;
    },
    get url() {
      return get().url;
    },
  };
}
