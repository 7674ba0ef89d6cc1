/**
 * `npm run webhooks:failed`: lists deliveries given up on, new-plant ones and missed change events; `-- --replay` makes
 * the new-plant ones pending again and resyncs each missed (plant, URL), for a running instance to deliver. Outside
 * production without MONGODB_URI, it reads the development folder's embedded MongoDB.
 */
import { parseArgs } from 'node:util';
import type { Collection } from 'mongodb';
import { ConfigError, loadConfig } from './config.js';
import { createMongoClient } from './db/mongo-client.js';
import { PLANTS_COLLECTION } from './plants/mongo-plant-store.js';
import type { EventDocument } from './webhooks/delivery-worker.js';
import { listFailed, replayFailed } from './webhooks/failed-events.js';
import { listMissed, resyncMissed, type ListedMiss, type MissedDocument, type ResyncOutcome } from './webhooks/missed-changes.js';
import { loggedUrl } from './logs/logged-url.js';

const USAGE = `Usage: npm run webhooks:failed -- [--replay] [--id msg_…]
Lists the webhook deliveries given up on, in the MongoDB of MONGODB_URI (unset, outside production:
the embedded MongoDB npm start or npm run dev is running): new-plant deliveries (WEBHOOK_URLS), then
change events missed (WEBHOOK_CHANGE_URLS), one line per plant and URL, "change" and the event's type.
  --replay     new-plant deliveries: make them pending again, with their webhook-id.
               missed changes: resync each URL's mirror of the plant, with a new event for that URL
               alone, queued after the plant's waiting ones: plant.updated with the plant as stored
               now, or plant.deleted when it no longer exists (never the old event: it would bring
               back a state later changes replaced). A plant whose change queue is full
               (WEBHOOK_CHANGE_QUEUE_LIMIT, as the service's) is not resynced and stays listed.
               A running instance with WEBHOOK_SECRET delivers them.
  --id msg_…   only the delivery with this webhook-id (of either kind)
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
    const db = client.db(config.mongodb.dbName);
    const options = { writeConcern: config.mongodb.writeConcern, promoteLongs: false };
    const plants = db.collection<EventDocument>(PLANTS_COLLECTION, options);
    const failed = await listFailed(plants, values.id);
    for (const delivery of failed) {
      const when = delivery.failedAt?.toISOString() ?? '?';
      console.log(
        `plant ${delivery.plantId}  ${delivery.webhookId}  ${loggedUrl(delivery.url)}  ${attempts(delivery.attempts)}, ` +
          `failed ${when}: ${delivery.lastError ?? '?'}`,
      );
    }
    console.log(`${failed.length} failed deliver${failed.length === 1 ? 'y' : 'ies'}`);
    const changes = db.collection<MissedDocument>(PLANTS_COLLECTION, options);
    const missed = await listMissed(changes, values.id);
    for (const miss of missed) console.log(`change ${missLine(miss)}, failed ${miss.failedAt.toISOString()}: ${miss.lastError ?? '?'}`);
    console.log(`${missed.length} missed change${missed.length === 1 ? '' : 's'}`);
    if (values.replay && failed.length > 0) {
      const { replayed, busy } = await replayFailed(plants, values.id);
      console.log(`replayed ${replayed}${busy > 0 ? `; ${busy} skipped, their event being worked on by an instance: run again` : ''}`);
    }
    if (values.replay && missed.length > 0) await resync(changes, missed, config.webhooks.changeQueueLimit);
    return 0;
  } finally {
    await client.close();
  }
}

function attempts(count: number): string {
  return `${count} attempt${count === 1 ? '' : 's'}`;
}

function missLine(miss: ListedMiss): string {
  return `plant ${miss.plantId}  ${miss.webhookId}  ${loggedUrl(miss.url)}  ${miss.type}, ${attempts(miss.attempts)}`;
}

const NOT_RESYNCED: Record<Exclude<ResyncOutcome['kind'], 'resynced'>, string> = {
  busy: 'changed at every try: run again',
  full: 'its change queue is full (WEBHOOK_CHANGE_QUEUE_LIMIT): run again once its receivers take the events waiting',
  gone: 'no longer missed: resynced meanwhile, or replaced by a later miss of that URL (run again to list it)',
};

/** Resyncs each miss in turn, saying which were not and why, then counting them. */
async function resync(changes: Collection<MissedDocument>, missed: ListedMiss[], queueLimit: number): Promise<void> {
  const counts = { resynced: 0, busy: 0, full: 0, gone: 0 };
  for (const miss of missed) {
    const { kind } = await resyncMissed(changes, miss, queueLimit);
    counts[kind] += 1;
    if (kind !== 'resynced') console.log(`not resynced: change ${missLine(miss)}: ${NOT_RESYNCED[kind]}`);
  }
  const others = (['busy', 'full', 'gone'] as const).filter((kind) => counts[kind] > 0).map((kind) => `, ${kind} ${counts[kind]}`);
  console.log(`resynced ${counts.resynced}${others.join('')}`);
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `webhooks:failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
