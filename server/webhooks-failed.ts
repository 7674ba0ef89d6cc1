/**
 * `npm run webhooks:failed`: lists deliveries given up on, new-plant ones and missed change events; `-- --replay` makes
 * the new-plant ones pending again and resyncs each missed (plant, URL), for a running instance to deliver; `-- --discard`
 * drops them for a receiver retired for good. Outside production without MONGODB_URI, it reads the development
 * folder's embedded MongoDB.
 */
import { parseArgs } from 'node:util';
import type { Collection, Db } from 'mongodb';
import { loadWebhooksCliConfig } from './config.js';
import { ConfigError } from './env/config-error.js';
import { createMongoClient } from './db/mongo-client.js';
import { PLANTS_COLLECTION } from './plants/mongo-plant-store.js';
import type { EventDocument } from './webhooks/delivery-worker.js';
import { discardMissed } from './webhooks/discard-missed.js';
import { discardFailed, listFailed, replayFailed } from './webhooks/failed-events.js';
import type { FailedFilter } from './webhooks/failed-filter.js';
import { listMissed, resyncMissed, type ListedMiss, type MissedDocument, type ResyncOutcome } from './webhooks/missed-changes.js';
import { loggedUrl } from './logs/logged-url.js';

const USAGE = `Usage: npm run webhooks:failed -- [--replay | --discard] [--id msg_…] [--url <url>]
Lists the webhook deliveries given up on, in the MongoDB of MONGODB_URI (unset, outside production:
the embedded MongoDB npm start or npm run dev is running): new-plant deliveries (WEBHOOK_URLS), then
change events missed (WEBHOOK_CHANGE_URLS), one line per plant and URL, "change" and the event's type.
It reads MONGODB_* and WEBHOOK_CHANGE_QUEUE_LIMIT only, set as the service's.
  --replay     new-plant deliveries: make them pending again, with their webhook-id.
               missed changes: resync each URL's mirror of the plant, with a new event for that URL
               alone, queued after the plant's waiting ones: plant.updated with the plant as stored
               now, or plant.deleted when it no longer exists (never the old event: it would bring
               back a state later changes replaced). A plant whose change queue is full
               (WEBHOOK_CHANGE_QUEUE_LIMIT, as the service's) is not resynced and stays listed.
               A running instance with WEBHOOK_SECRET delivers them.
  --discard    drop them for good, for a receiver retired (remove its URL from WEBHOOK_URLS or
               WEBHOOK_CHANGE_URLS first, then --discard --url <url>): nothing is sent again, they
               are no longer listed nor counted as failed, and a deleted plant kept only for its
               miss goes.
  --id msg_…   only the delivery with this webhook-id (of either kind)
  --url <url>  only those sent to this URL: as configured, or by origin and path, as listed
  --help       this text
Exit codes: 0 done (a listing, whatever it lists); 1 not all done (the reason is printed: run it
again), --id or --url matching nothing, no plants collection in the database, or an invalid
configuration; 2 a usage error, or no MongoDB to read.`;

class UsageError extends Error {}

function options() {
  try {
    return parseArgs({
      options: {
        replay: { type: 'boolean', default: false },
        discard: { type: 'boolean', default: false },
        id: { type: 'string' },
        url: { type: 'string' },
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
  if (values.replay && values.discard) throw new UsageError('--replay and --discard cannot be given together; see --help');
  const config = loadWebhooksCliConfig(process.env);
  const uri = config.mongodb.uri ?? (await developmentMongoUri(config.devDir));
  if (uri === undefined) return 2;
  const client = createMongoClient({ uri, timeoutMs: config.mongodb.timeoutMs });
  try {
    const db = client.db(config.mongodb.dbName);
    // An empty list from a database that is not the service's (a mistyped name) would read as an all-clear.
    if (!(await holdsPlants(db))) {
      console.error(`no plants collection in database ${config.mongodb.dbName}: is it the service's?`);
      return 1;
    }
    const options = { writeConcern: config.mongodb.writeConcern, promoteLongs: false };
    const plants = db.collection<EventDocument>(PLANTS_COLLECTION, options);
    const filter: FailedFilter = { webhookId: values.id, url: values.url };
    const failed = await listFailed(plants, filter);
    for (const delivery of failed) {
      const when = delivery.failedAt?.toISOString() ?? '?';
      console.log(
        `plant ${delivery.plantId}  ${delivery.webhookId}  ${loggedUrl(delivery.url)}  ${attempts(delivery.attempts)}, ` +
          `failed ${when}: ${delivery.lastError ?? '?'}`,
      );
    }
    console.log(`${failed.length} failed deliver${failed.length === 1 ? 'y' : 'ies'}`);
    const changes = db.collection<MissedDocument>(PLANTS_COLLECTION, options);
    const missed = await listMissed(changes, filter);
    for (const miss of missed) console.log(`change ${missLine(miss)}, failed ${miss.failedAt.toISOString()}: ${miss.lastError ?? '?'}`);
    console.log(`${missed.length} missed change${missed.length === 1 ? '' : 's'}`);
    if ((filter.webhookId !== undefined || filter.url !== undefined) && failed.length + missed.length === 0) {
      console.error(nothingMatches(filter));
      return 1;
    }
    let done = true;
    if (values.replay && failed.length > 0) {
      const { replayed, busy } = await replayFailed(plants, filter);
      console.log(`replayed ${replayed}${busy > 0 ? `; ${busy} skipped, their event being worked on by an instance: run again` : ''}`);
      done = busy === 0;
    }
    if (values.replay && missed.length > 0) done = (await resync(changes, missed, config.changeQueueLimit)) && done;
    if (values.discard) done = await discard(plants, changes, filter, missed);
    return done ? 0 : 1;
  } finally {
    await client.close();
  }
}

async function holdsPlants(db: Db): Promise<boolean> {
  return (await db.listCollections({ name: PLANTS_COLLECTION }, { nameOnly: true }).toArray()).length > 0;
}

function nothingMatches({ webhookId, url }: FailedFilter): string {
  const what = [webhookId !== undefined && `has the webhook-id ${webhookId}`, url !== undefined && `was sent to ${url}`].filter(Boolean);
  return `no failed delivery or missed change ${what.join(' and ')}`;
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

/** Resyncs each miss in turn, saying which were not and why, then counting them; false when some are left to do. */
async function resync(changes: Collection<MissedDocument>, missed: ListedMiss[], queueLimit: number): Promise<boolean> {
  const counts = { resynced: 0, busy: 0, full: 0, gone: 0 };
  for (const miss of missed) {
    const { kind } = await resyncMissed(changes, miss, queueLimit);
    counts[kind] += 1;
    if (kind !== 'resynced') console.log(`not resynced: change ${missLine(miss)}: ${NOT_RESYNCED[kind]}`);
  }
  const others = (['busy', 'full', 'gone'] as const).filter((kind) => counts[kind] > 0).map((kind) => `, ${kind} ${counts[kind]}`);
  console.log(`resynced ${counts.resynced}${others.join('')}`);
  return counts.busy === 0 && counts.full === 0;
}

/** Discards both kinds, then counts them; false when some changed at every try. */
async function discard(
  plants: Collection<EventDocument>,
  changes: Collection<MissedDocument>,
  filter: FailedFilter,
  missed: ListedMiss[],
): Promise<boolean> {
  const deliveries = await discardFailed(plants, filter);
  const misses = await discardMissed(changes, missed);
  const gone = deliveries.gone + misses.gone;
  const others = [misses.busy > 0 && `, busy ${misses.busy}`, gone > 0 && `, gone ${gone}`].filter(Boolean);
  console.log(`discarded ${deliveries.discarded + misses.discarded}${others.join('')}`);
  if (misses.busy > 0) console.log(`${misses.busy} not discarded, their plants changed at every try: run again`);
  return misses.busy === 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `webhooks:failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
