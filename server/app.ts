import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyLoggerOptions } from 'fastify';
import { appRouter } from '../routers/app.js';
import { createContextFactory } from '../routers/trpc.js';
import { createTokenVerifier, type TokenVerifier } from './auth/bearer-tokens.js';
import type { Config } from './config.js';
import { createMongoClient } from './db/mongo-client.js';
import { registerDocsRoutes } from './http/docs-routes.js';
import { registerAuthFailureLimit } from './http/auth-failure-limit.js';
import { answerClientError } from './http/client-errors.js';
import { registerErrorHandling } from './http/error-handling.js';
import { registerGracefulClose } from './http/graceful-close.js';
import { registerHealthRoutes } from './http/health-routes.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { buildOpenApiDocument } from './http/openapi-document.js';
import { OneLinePerRequest } from './http/request-log.js';
import { registerRestRoutes } from './http/rest-routes.js';
import { registerTrpcRoutes } from './http/trpc-routes.js';
import { MongoPlantStore, PLANTS_COLLECTION } from './plants/mongo-plant-store.js';
import type { PlantStore } from './plants/plant-store.js';
import { registerWebhooks } from './webhooks/register-webhooks.js';

/** What the app needs from configuration: a MongoDB to use and at least one token. */
export type AppConfig = Omit<Config, 'mongodb'> & { mongodb: Config['mongodb'] & { uri: string } };

export interface AppOverrides {
  /** Replaces the MongoDB store, for benchmarks of the HTTP layers alone. */
  store?: PlantStore;
  /** Where log lines go instead of stdout, for tests that read the logs. */
  logStream?: FastifyLoggerOptions['stream'];
}

/**
 * Builds the whole service as a Fastify instance, not yet listening: the parts every route shares
 * (`buildAppBase`), then the plant API through tRPC, served as REST by trpc-to-openapi and as tRPC.
 */
export async function buildApp(config: AppConfig, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const { app, store, verifyToken } = await buildAppBase(config, overrides);
  const createContext = createContextFactory({ store, verifyToken });
  await registerRestRoutes(app, { router: appRouter, createContext });
  await registerTrpcRoutes(app, { router: appRouter, createContext, bodyLimit: config.http.bodyLimit });
  return app;
}

/** The app before its API routes, and what those routes need. */
export interface AppBase {
  app: FastifyInstance;
  store: PlantStore;
  verifyToken: TokenVerifier;
}

/**
 * Everything but the API routes: Fastify with its limits and timeouts, one MongoClient (closed with
 * the app), the JSON body parser, error shapes, request ids, graceful close, CORS, health probes and
 * the docs. The benchmark builds its plain-Fastify baseline on this too, so that it compares the
 * API layers alone.
 */
export async function buildAppBase(config: AppConfig, overrides: AppOverrides = {}): Promise<AppBase> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization'],
      ...(overrides.logStream && { stream: overrides.logStream }),
    },
    logController: new OneLinePerRequest(),
    genReqId: () => randomUUID(),
    bodyLimit: config.http.bodyLimit,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // The client address (request.ip, which the failed-auth limit counts by) behind a load balancer.
    trustProxy: config.http.trustProxy,
    http: requestTimeoutOptions(config.http.requestTimeoutMs),
    clientErrorHandler: answerClientError,
    // server/http/graceful-close.ts answers 503 while closing, in the app's error shapes.
    return503OnClosing: false,
  });

  const store = overrides.store ?? createMongoStore(app, config);
  const openApiDocument = buildOpenApiDocument(appRouter);

  registerErrorHandling(app, { bodyLimit: config.http.bodyLimit });
  registerJsonBodyParser(app);
  // Callback-style hooks on the hot path: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerGracefulClose(app);
  if (config.authFailureLimit) registerAuthFailureLimit(app, config.authFailureLimit);
  await app.register(cors, {
    origin: config.corsOrigins.length > 0 ? config.corsOrigins : false,
    methods: ['GET', 'POST'],
    allowedHeaders: ['authorization', 'content-type'],
    exposedHeaders: ['x-request-id', 'www-authenticate'],
    maxAge: 600,
  });

  registerHealthRoutes(app, { store });
  app.get('/openapi.json', async () => openApiDocument);
  await registerDocsRoutes(app, { document: openApiDocument });
  return { app, store, verifyToken: createTokenVerifier(config.apiTokens) };
}

/**
 * Makes REQUEST_TIMEOUT_MS hold for a client that stalls mid-request. Node enforces it only when it
 * sweeps its connections (every 30 s by default), and when its headersTimeout (60 s by default) is
 * the larger it swaps the two, so a stalled body was given 60 s. Headers and body both get
 * REQUEST_TIMEOUT_MS, checked every quarter of it: a stalled client goes within 1.25 × the timeout.
 */
function requestTimeoutOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(25, Math.floor(requestTimeoutMs / 4))),
  };
}

/** The service's MongoDB store, its client closed with `app`, and the webhook worker on the same client. */
export function createMongoStore(app: FastifyInstance, config: AppConfig): PlantStore {
  const client = createMongoClient(config.mongodb);
  app.addHook('onClose', async () => client.close());
  const { w, journal } = config.mongodb.writeConcern;
  const db = client.db(config.mongodb.dbName);
  const events = registerWebhooks(app, { db, collection: PLANTS_COLLECTION, writeConcern: { w, journal }, config });
  return new MongoPlantStore(db, { w, journal }, events);
}
