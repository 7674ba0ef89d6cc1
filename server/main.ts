/**
 * Entry point: reads the configuration, starts tracing when it is configured, starts the MongoDB
 * it names (or the embedded one), builds the app, listens, and shuts down gracefully on SIGINT or
 * SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { acceptsAnyone } from './auth/auth-config.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { resolveMongo, type MongoSource } from './db/mongo-source.js';
import { devTokenBanner } from './dev/token-banner.js';
import { logProcessWarnings } from './logs/process-warnings.js';
import { startTracing } from './observability/telemetry.js';

const SHUTDOWN_GRACE_MS = 10_000;

interface Running {
  app: FastifyInstance;
  mongo: MongoSource;
  /** Sends the spans still buffered, when the service traces. */
  stopTracing: () => Promise<void>;
}

async function start(config: Config): Promise<Running> {
  // Tracing first: the MongoDB driver's instrumentation can patch the driver only if it starts
  // before the driver is loaded (by the app, or by the embedded MongoDB), so the app is imported after it.
  const tracing = await startTracing(config.tracing);
  const stopTracing = async () => {
    await tracing?.shutdown();
  };
  const { buildApp } = await import('./app.js');
  const mongo = await resolveMongo({
    uri: config.mongodb.uri,
    warn: (message) => {
      console.warn(message);
    },
  });
  // Nothing configured to accept anyone: development accepts a token of its own (production refuses to start).
  const devToken = acceptsAnyone(config) ? undefined : randomBytes(24).toString('base64url');
  let app: FastifyInstance | undefined;
  let address: string;
  try {
    app = await buildApp({
      ...config,
      apiTokens: devToken ? [{ name: 'development', token: devToken }] : config.apiTokens,
      mongodb: { ...config.mongodb, uri: mongo.uri },
    });
    logProcessWarnings(app.log);
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close();
    await mongo.stop();
    await stopTracing();
    throw error;
  }
  app.log.info({ mongodb: mongo.description }, `plant store listening on ${address}`);
  if (devToken) console.log(devTokenBanner(address, devToken));
  return { app, mongo, stopTracing };
}

function main(): void {
  const config = readConfig();
  const running = start(config);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error('plant store: shutdown took too long, exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // A signal during start-up waits for it, so that a MongoDB it started is stopped too.
    const service = await running.catch(() => undefined);
    if (!service) return;
    service.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await service.app.close();
    await service.mongo.stop();
    await service.stopTracing();
    process.exit(0);
  };
  // `on`, not `once`: Ctrl-C under `npm start` delivers SIGINT twice (from the terminal and
  // forwarded by npm), and the second one must not kill the process mid-shutdown.
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));

  running.catch((error: unknown) => {
    // A start-up failure (port taken, no MongoDB to use...) is told in one line.
    console.error(`plant store failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

main();
