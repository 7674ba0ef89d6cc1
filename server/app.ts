import Fastify, { type FastifyInstance, type FastifyLoggerOptions } from 'fastify';
import { appRouter, createCaller } from '../routers/app.js';
import { createContextFactory, type Context } from '../routers/context.js';
import type { PlantStore } from '../routers/plant-store.js';
import { createAuthenticator } from './auth/authenticator.js';
import type { Config } from './config.js';
import { MongoDatabase } from './db/mongo-database.js';
import { limitAuthFailures } from './http/auth-failure-limit.js';
import { answerClientError } from './http/client-errors.js';
import { limitConnections } from './http/connection-limits.js';
import { registerCors } from './http/cors.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/error-handling.js';
import { answerHeadAsGet } from './http/head-requests.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { registerRequestHooks } from './http/request-hooks.js';
import { createRequestIdGenerator } from './http/request-ids.js';
import { OneLinePerRequest } from './http/request-log.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { RouteMethods } from './http/route-methods.js';
import { loadTelemetry, type Telemetry } from './observability/telemetry.js';
import { registerDocsRoutes } from './openapi/docs-routes.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { MongoPlantStore, PLANTS_COLLECTION } from './plants/mongo-plant-store.js';
import { createApiFastPath } from './routes/api-routes.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { registerRestRoutes } from './routes/rest-routes.js';
import { registerTrpcRoutes, TRPC_PREFIX } from './routes/trpc-routes.js';
import { registerWebhooks } from './webhooks/register-webhooks.js';

/** What the app needs from configuration: a MongoDB to use and at least one token. */
export type AppConfig = Omit<Config, 'mongodb'> & { mongodb: Config['mongodb'] & { uri: string } };

export interface AppOptions {
  /** A store of your own in place of MongoDB (tests, benchmarks of the HTTP layers, another database). */
  store?: PlantStore;
  /** Where log lines go instead of stdout, for tests that read the logs. */
  logStream?: FastifyLoggerOptions['stream'];
}

/**
 * The whole service as a Fastify instance, not yet listening: Fastify with its limits and
 * timeouts, the parts every route shares (body parser, error shapes, request ids, graceful
 * close, CORS), health probes and docs, then the plant API: the tRPC router served as REST by
 * trpc-to-openapi and as tRPC.
 */
export async function buildApp(config: AppConfig, options: AppOptions = {}): Promise<FastifyInstance> {
  const requestLog = new OneLinePerRequest();
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization'],
      ...(options.logStream && { stream: options.logStream }),
    },
    logController: requestLog,
    childLoggerFactory: requestLoggerFactory,
    genReqId: createRequestIdGenerator(),
    bodyLimit: config.http.bodyLimit,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Nothing moving on a connection for this long closes it: an answer its client does not read (connection-limits.ts).
    connectionTimeout: config.http.responseTimeoutMs,
    // The client address (request.ip, which the failed-auth limit counts by) behind a load balancer.
    trustProxy: config.http.trustProxy,
    // A request without Host is refused by request-refusals.ts, in the app's error shape and logged.
    http: { ...requestTimeoutOptions(config.http.requestTimeoutMs), requireHostHeader: false },
    clientErrorHandler: answerClientError,
    // A URL the router cannot read (`/plants/%ff`), answered in the app's error shapes.
    frameworkErrors: frameworkErrorHandler({ prefix: TRPC_PREFIX, router: appRouter }),
    // While closing, requests already on open connections are answered as usual (graceful-close.ts).
    return503OnClosing: false,
  });

  // Metrics and traces, when configured (server/observability/): first, so that they see every route.
  const telemetry = await loadTelemetry(config, appRouter);
  if (telemetry.tracing && telemetry.operations) await telemetry.tracing.instrument(app, telemetry.operations);
  if (telemetry.metrics && config.metrics) telemetry.metrics.serve(app, config.metrics);

  const store = options.store ?? createMongoStore(app, config, telemetry);

  // Parts every route shares, set before any route is added: the onRoute hooks of the next two see every route.
  const routeMethods = new RouteMethods();
  routeMethods.record(app);
  answerHeadAsGet(app);
  registerErrorHandling(app, (url) => routeMethods.at(url));
  registerJsonBodyParser(app);
  registerRequestHooks(app, config.http);
  limitConnections(app, config.http);
  await registerCors(app, config.corsOrigins);

  // Probes and docs, no token needed.
  registerHealthRoutes(app, { store });
  const openApiDocument = buildOpenApiDocument(appRouter);
  // Written once: it is the same for every caller, and needs no token, so anyone may ask for it in a flood.
  const openApiText = JSON.stringify(openApiDocument);
  app.get('/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(openApiText));
  await registerDocsRoutes(app, { document: openApiDocument });

  // The plant API: one router, served as REST and as tRPC, and in process (createAppCaller);
  // the failed-authentication limit guards only these routes, which need a token. Each request's
  // log line names its caller.
  const authenticator = await createAuthenticator(config, app.log.child({ component: 'auth' }));
  app.addHook('onReady', async () => {
    authenticator.start();
  });
  requestLog.nameCallersWith(authenticator.principalOf);
  const createContext = createContextFactory({ store, verifyToken: authenticator.verify });
  const api = { router: appRouter, createContext, fastPath: config.http.fastPath ? createApiFastPath(appRouter, createContext, app.log) : undefined };
  contextFactories.set(app, api.createContext);
  await app.register(async (guarded) => {
    if (telemetry.metrics && telemetry.operations) telemetry.metrics.countRequests(guarded, telemetry.operations);
    if (config.authFailureLimit) await limitAuthFailures(guarded, config.authFailureLimit);
    await registerRestRoutes(guarded, api, routeMethods);
    await registerTrpcRoutes(guarded, api);
  });
  return app;
}

const contextFactories = new WeakMap<FastifyInstance, (authorization: string | undefined) => Context>();

/**
 * The procedures in process, on the app's own store: what they create is recorded for its
 * webhooks like any create over HTTP (`await app.ready()` starts the delivery worker,
 * `app.close()` stops it). `authorization` is judged as the Authorization header would be.
 */
export function createAppCaller(app: FastifyInstance, authorization: string | undefined) {
  const createContext = contextFactories.get(app);
  if (createContext === undefined) throw new Error('createAppCaller takes an app made by buildApp');
  return createCaller(createContext(authorization));
}

/**
 * Makes REQUEST_TIMEOUT_MS hold for a client that stalls mid-request: Node checks it only when it
 * sweeps its connections (every 30 s by default) and lets a larger headersTimeout (60 s) win, so
 * headers and body both get REQUEST_TIMEOUT_MS, checked every quarter of it.
 */
function requestTimeoutOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(25, Math.floor(requestTimeoutMs / 4))),
  };
}

/** One MongoDB client per app, connected once it is ready and closed with it, and the webhook worker on the same client. */
function createMongoStore(app: FastifyInstance, config: AppConfig, { metrics, tracing }: Telemetry): PlantStore {
  const database = new MongoDatabase({ ...config.mongodb, monitorCommands: metrics !== undefined }, app.log.child({ component: 'mongodb' }));
  metrics?.watchMongo(database.client);
  app.addHook('onReady', async () => {
    database.start();
  });
  app.addHook('onClose', () => database.close());
  const { w, journal } = config.mongodb.writeConcern;
  const observers = { ...metrics?.webhookObservers(), ...tracing?.webhookObservers() };
  const events = registerWebhooks(app, { db: database.db, guard: database, collection: PLANTS_COLLECTION, writeConcern: { w, journal }, config, observers });
  return new MongoPlantStore(database.db, { w, journal }, events, database);
}
