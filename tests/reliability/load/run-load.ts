import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { driveLoad, makePlants, type DriveResult } from './drive-load.js';
import type { LoadReport } from './load-report.js';
import { pageDuringLoad, type PagingReport } from './page-during-load.js';
import { startService } from '../../helpers/service-process.js';
import { verifyStore } from './verify-store.js';

export interface LoadOptions {
  /** Distinct plants to create, one request each. */
  plants: number;
  concurrency: number;
  /** A MongoDB to run against; the run uses a database of its own in it and drops it afterwards. */
  mongoUri: string;
}

/**
 * Starts the built service on `mongoUri`, creates `plants` distinct plants with `concurrency`
 * clients while another client pages through the list again and again, pages through it once
 * more, stops the service with SIGTERM, then reads the database back.
 */
export async function runLoad({ plants, concurrency, mongoUri }: LoadOptions): Promise<LoadReport> {
  const token = randomBytes(18).toString('base64url');
  const uri = new ConnectionString(mongoUri);
  const dbName = `plantstore_load_${randomBytes(4).toString('hex')}`;
  uri.pathname = `/${dbName}`;
  const service = await startService({ MONGODB_URI: uri.toString(), API_TOKENS: token, LOG_LEVEL: 'warn', NODE_ENV: 'production' });
  const sent = makePlants(plants, 1_000_000 + Math.floor(Math.random() * 1_000_000) * plants);
  let exitCode: number | null;
  let peakRssBytes: number;
  let drive: DriveResult;
  let paging: PagingReport;
  try {
    const pager = pageDuringLoad(service.url, token, sent);
    drive = await driveLoad({ url: service.url, token, plants: sent, concurrency, onOk: pager.acknowledge });
    paging = await pager.finish(drive.okIds);
    peakRssBytes = await service.peakRssBytes();
  } finally {
    exitCode = await service.stop('SIGTERM');
  }
  try {
    const { okIds, ...answers } = drive;
    const store = await verifyStore(uri.toString(), dbName, sent, okIds);
    return { plants, concurrency, ...answers, ...store, paging, peakRssBytes, exitCode, serviceOutput: service.output() };
  } finally {
    await dropDatabase(uri.toString(), dbName);
  }
}

async function dropDatabase(uri: string, dbName: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}
