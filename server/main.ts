/**
 * Entry point. Shuts down gracefully on SIGINT or SIGTERM: not ready at once, serving on for SHUTDOWN_DELAY_MS so load
 * balancers stop sending, then finishing what it has read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { acceptsAnyone } from './auth/auth-config.js';
import { loadConfig, type Config } from './config.js';
import { ConfigError } from './env/config-error.js';
import type { RunningMongo } from './dev/dev-run.js';
import { logProcessWarnings } from './logs/process-warnings.js';
import { startTracing } from './observability/telemetry.js';
import { logLine, warnsAt } from './logs/log-line.js';

const SHUTDOWN_GRACE_MS = 10_000;
const TRACES_FLUSH_MS = 2_000;

interface Running {
  app: FastifyInstance;
  stopMongo: () => Promise<void>;
  stopTracing: () => Promise<void>;
}

async function start(config: Config): Promise<Running> {
  // Tracing first: the MongoDB driver's instrumentation can patch the driver only if it starts
  // before the driver is loaded (by the app, or by the embedded MongoDB), so the app is imported after it.
  const warn = (message: string) => {
    if (warnsAt(config.logLevel)) process.stdout.write(logLine('warn', message));
  };
  const tracing = await startTracing(config.tracing, warn);
  // The last spans are sent as the service closes; a collector that does not answer must not hold the exit.
  const stopTracing = async () => {
    if (!tracing) return;
    const shutdown = tracing.shutdown().then(
      () => true,
      (error: unknown) => {
        warn(`opentelemetry: the last spans could not be sent: ${error instanceof Error ? error.message : String(error)}`);
        return true;
      },
    );
    const flushed = await Promise.race([shutdown, sleep(TRACES_FLUSH_MS, false, { ref: false })]);
    if (!flushed) warn(`opentelemetry: the last spans were not sent within ${TRACES_FLUSH_MS} ms of closing: exiting without them`);
  };
  const { buildApp } = await import('./app.js');
  // Without MONGODB_URI (never in production), the embedded MongoDB keeps its data in the development folder.
  const mongo = await mongoToUse(config);
  const stopMongo = () => mongo.stop();
  let app: FastifyInstance | undefined;
  let address: string;
  let devToken: Awaited<ReturnType<typeof import('./dev/dev-run.js').devToken>> | undefined;
  try {
    // Nothing configured to accept anyone: development accepts a token of its own, kept across restarts (production refuses to start).
    devToken = acceptsAnyone(config) ? undefined : await (await import('./dev/dev-run.js')).devToken(config.devDir);
    app = await buildApp({
      ...config,
      apiTokens: devToken ? [{ name: 'development', token: devToken.token }] : config.apiTokens,
      mongodb: { ...config.mongodb, uri: mongo.uri },
    });
    logProcessWarnings(app.log);
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close();
    await stopMongo();
    await stopTracing();
    throw error;
  }
  app.log.info({ mongodb: mongo.description }, `plant store listening on ${address}`);
  if (devToken) console.log(devToken.banner(address));
  return { app, stopMongo, stopTracing };
}

/** MONGODB_URI; without it, the embedded MongoDB of development, whose code production never loads. */
async function mongoToUse(config: Config): Promise<RunningMongo> {
  const { uri } = config.mongodb;
  if (uri) return { uri, description: 'MongoDB at MONGODB_URI', stop: () => Promise.resolve() };
  return (await import('./dev/dev-run.js')).startDevMongo(config.devDir, config.mongodb.dbName);
}

function main(): void {
  const config = readConfig();
  const running = start(config);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const signalledAt = performance.now();
    setTimeout(() => {
      process.stderr.write(logLine('fatal', 'plant store: shutdown took too long, exiting'));
      process.exit(1);
    }, config.shutdownDelayMs + SHUTDOWN_GRACE_MS).unref();
    // A signal during start-up waits for it, so that a MongoDB it started is stopped too.
    const service = await running.catch(() => undefined);
    if (!service) return;
    // /readyz fails from now on; everything else serves on while load balancers take the instance out.
    service.app.shutdown.announce();
    if (config.shutdownDelayMs > 0) {
      service.app.log.info(
        { signal, shutdownDelayMs: config.shutdownDelayMs },
        'shutting down: not ready, still serving until the delay ends',
      );
      await sleep(config.shutdownDelayMs);
    }
    service.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await service.app.shutdown.acceptWaitingConnections();
    await service.app.close();
    await service.stopMongo();
    await service.stopTracing();
    // The line that tells a log reader the instance ended well, not killed.
    service.app.log.info({ signal, ms: Math.round(performance.now() - signalledAt) }, 'stopped: every request answered');
    process.exit(0);
  };
  // `on`, not `once`: Ctrl-C under `npm start` delivers SIGINT twice (from the terminal and
  // forwarded by npm), and the second one must not kill the process mid-shutdown.
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));

  running.catch((error: unknown) => {
    // A start-up failure (port taken, no MongoDB to use...) is told in one line.
    const message = error instanceof ConfigError ? error.message : `plant store failed to start: ${startFailure(error)}`;
    process.stderr.write(logLine('fatal', message));
    process.exit(1);
  });
}

function startFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const portTaken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
  return portTaken ? `${error.message}: another process listens there; stop it, or choose another PORT (or METRICS_PORT)` : error.message;
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(logLine('fatal', error.message));
      process.exit(1);
    }
    throw error;
  }
}

main();
