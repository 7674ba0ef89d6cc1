/**
 * Entry point: reads the configuration, starts the MongoDB it names (or the embedded one),
 * builds the app, listens, and shuts down gracefully on SIGINT or SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { resolveMongo } from './db/mongo-source.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = readConfig();
  const mongo = await resolveMongo({
    uri: config.mongodb.uri,
    warn: (message) => {
      console.warn(message);
    },
  });
  const devToken = config.apiTokens.length === 0 ? randomBytes(24).toString('base64url') : undefined;

  const app = await buildApp({
    ...config,
    apiTokens: devToken ? [devToken] : config.apiTokens,
    mongodb: { ...config.mongodb, uri: mongo.uri },
  });

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      app.log.error('shutdown took too long, exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    await app.close();
    await mongo.stop();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));

  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    await mongo.stop();
    throw error;
  }
  app.log.info({ mongodb: mongo.description }, `plant store listening on ${address}`);
  if (devToken) printDevToken(address, devToken);
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

function printDevToken(address: string, token: string): void {
  console.log(
    [
      '',
      'No API_TOKENS set: this run accepts one development token.',
      `  token: ${token}`,
      '  try it:',
      `  curl -s -X POST ${address}/plants -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '{"id": 1, "name": "Monstera", "tag": "tropical"}'`,
      '',
    ].join('\n'),
  );
}

try {
  await main();
} catch (error) {
  // A start-up failure (port taken, MongoDB that cannot be started...) is told in one line.
  console.error(`plant store failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
