/**
 * `npm run webhooks:failed`: lists deliveries given up on; `-- --replay` makes them pending again for a running
 * instance to deliver. Outside production without MONGODB_URI, it reads the development folder's embedded MongoDB.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { createMongoClient } from './db/mongo-client.js';
import { PLANTS_COLLECTION } from './plants/mongo-plant-store.js';
import type { EventDocument } from './webhooks/delivery-worker.js';
import { listFailed, replayFailed } from './webhooks/failed-events.js';
import { loggedUrl } from './logs/logged-url.js';

const USAGE = `Usage: npm run webhooks:failed -- [--replay] [--id msg_…]
Lists the new-plant webhook deliveries given up on, in the MongoDB of MONGODB_URI
(unset, outside production: the embedded MongoDB npm start or npm run dev is running).
  --replay     make them pending again: a running instance with WEBHOOK_SECRET delivers them
  --id msg_…   only the delivery with this webhook-id
  --help       this text`;

class UsageError extends Error {}

function options() {
  try {
    return parseArgs({
      options: {
        replay: { type: 'boolean', default: false },
        id: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}; see --help`);
  }
}

/** The URI `npm start` or `npm run dev` recorded for its embedded MongoDB; undefined, saying why, when there is none. */
async function developmentMongoUri(devDir: string): Promise<string | undefined> {
  const { devFolder, mongodHoldingData, recordedMongoUri } = await import('./dev/dev-folder.js');
  const folder = devFolder(devDir);
  const recorded = await recordedMongoUri(folder);
  // After a SIGKILL the recorded address outlives its MongoDB: the data's lock tells whether one still runs.
  if (recorded === undefined || (await mongodHoldingData(folder)) === undefined) {
    console.error(
      `MONGODB_URI is not set, and no embedded MongoDB is running on ${folder.path} (npm start and npm run dev record ` +
        `its address in ${folder.uriFile}): start one, or set MONGODB_URI`,
    );
    return undefined;
  }
  console.error(`the embedded MongoDB of npm start / npm run dev: ${recorded}`);
  return recorded;
}

async function main(): Promise<number> {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  // In production the configuration requires MONGODB_URI: the development folder is read only outside it.
  const config = loadConfig(process.env);
  const uri = config.mongodb.uri ?? (await developmentMongoUri(config.devDir));
  if (uri === undefined) return 2;
  const client = createMongoClient({ uri, timeoutMs: config.mongodb.timeoutMs });
  try {
    const plants = client
      .db(config.mongodb.dbName)
      .collection<EventDocument>(PLANTS_COLLECTION, { writeConcern: config.mongodb.writeConcern, promoteLongs: false });
    const failed = await listFailed(plants, values.id);
    for (const delivery of failed) {
      const when = delivery.failedAt?.toISOString() ?? '?';
      console.log(
        `plant ${delivery.plantId}  ${delivery.webhookId}  ${loggedUrl(delivery.url)}  ${delivery.attempts} ` +
          `attempt${delivery.attempts === 1 ? '' : 's'}, failed ${when}: ${delivery.lastError ?? '?'}`,
      );
    }
    console.log(`${failed.length} failed deliver${failed.length === 1 ? 'y' : 'ies'}`);
    if (values.replay && failed.length > 0) {
      const { replayed, busy } = await replayFailed(plants, values.id);
      console.log(`replayed ${replayed}${busy > 0 ? `; ${busy} skipped, their event being worked on by an instance: run again` : ''}`);
    }
    return 0;
  } finally {
    await client.close();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `webhooks:failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
