import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { driveLoad, makePlants, type DriveResult } from './drive-load.js';
import type { LoadReport } from './load-report.js';
import { pageDuringLoad, type PagingReport } from './page-during-load.js';
import { startService } from '@plant-store/service-launcher';
import { verifyStore } from './verify-store.js';
import { verifyWebhooks } from './verify-webhooks.js';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';

export interface LoadOptions {
  /** Distinct plants to create, one request each. */
  plants: number;
  concurrency: number;
  /** A MongoDB to run against; the run uses a database of its own in it and drops it afterwards. */
  mongoUri: string;
  /** Also run a webhook receiver on loopback, and wait for every acknowledged plant's event before stopping. */
  webhooks?: boolean;
}

/** How long the run waits, after the last answer, for the events still on their way. */
const WEBHOOK_DRAIN_TIMEOUT_MS = 60_000;

/**
 * Starts the built service on `mongoUri`, creates `plants` distinct plants with `concurrency`
 * clients while another client pages through the list again and again, pages through it once
 * more, stops the service with SIGTERM, then reads the database back.
 */
export async function runLoad({ plants, concurrency, mongoUri, webhooks = false }: LoadOptions): Promise<LoadReport> {
  const token = randomBytes(18).toString('base64url');
  const uri = new ConnectionString(mongoUri);
  const dbName = `plantstore_load_${randomBytes(4).toString('hex')}`;
  uri.pathname = `/${dbName}`;
  const secret = newWebhookSecret();
  const receiver = webhooks ? await startWebhookReceiver({ secret }) : undefined;
  const webhookEnv: Record<string, string> = receiver
    ? { WEBHOOK_URLS: receiver.url(), WEBHOOK_SECRET: secret, WEBHOOK_RETRY_BASE_MS: '100' }
    : {};
  const service = await startService({
    MONGODB_URI: uri.toString(),
    API_TOKENS: token,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...webhookEnv,
  });
  const sent = makePlants(plants, 1_000_000 + Math.floor(Math.random() * 1_000_000) * plants);
  let exitCode: number | null;
  let peakRssBytes: number;
  let drive: DriveResult;
  let lastAnswerAt = 0;
  let paging: PagingReport;
  try {
    const pager = pageDuringLoad(service.url, token, sent);
    drive = await driveLoad({ url: service.url, token, plants: sent, concurrency, onOk: pager.acknowledge });
    lastAnswerAt = Date.now();
    paging = await pager.finish(drive.okIds);
    peakRssBytes = await service.peakRssBytes();
    if (receiver) await waitForEvents(receiver, drive.okIds.length);
  } finally {
    exitCode = await service.stop('SIGTERM');
    await receiver?.close();
  }
  try {
    const { okIds, ...answers } = drive;
    const store = await verifyStore(uri.toString(), dbName, sent, okIds);
    const webhookCheck = receiver && { webhooks: verifyWebhooks(receiver.received, sent, okIds, lastAnswerAt) };
    return { plants, concurrency, ...answers, ...store, paging, ...webhookCheck, peakRssBytes, exitCode, serviceOutput: service.output() };
  } finally {
    await dropDatabase(uri.toString(), dbName);
  }
}

/** Until the receiver has had as many events as plants were acknowledged (or the drain timeout: the check then tells what is missing). */
async function waitForEvents(receiver: WebhookReceiver, count: number): Promise<void> {
  await receiver
    .waitFor((received) => new Set(received.map((request) => request.id)).size >= count, WEBHOOK_DRAIN_TIMEOUT_MS)
    .catch(() => undefined);
}

async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}
