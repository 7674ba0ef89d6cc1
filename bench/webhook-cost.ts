/**
 * `npm run bench:webhooks [-- --quick]`: what the new-plant webhook costs `POST /plants`.
 *
 * 1. Recording alone: MongoPlantStore.create in this process, with and without the event in the
 *    insert (and the worker's sparse index on the collection), no worker running: the cost every
 *    create pays for WEBHOOK_URLS.
 * 2. The whole service: the compiled service in a child, without and with WEBHOOK_URLS (a receiver
 *    on loopback in this process answering 200), so its own worker delivers as it serves. Each
 *    webhook round then waits until every event has arrived, so the next round starts on a quiet
 *    MongoDB, and the wait is reported.
 * Rounds are interleaved (A B, A B...) so drift hits both alike; figures are medians.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MongoClient, type Db } from 'mongodb';

import { runRound } from './load-round.js';
import { newWebhookSecret, startWebhookReceiver } from '@plant-store/service-launcher';
import { describeMachine } from './machine.js';
import { createPlantRequest } from './plant-requests.js';
import { formatTable, type ContenderSummary, type MeasuredRound } from './report.js';
import { ServerProcess } from './server-process.js';
import { resolveMongo } from '../index.js';
import { DUE_INDEX, MongoPlantStore, PLANTS_COLLECTION } from '../index.js';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const plan = args.quick
  ? { rounds: 3, seconds: 2, warmupSeconds: 1, storeCreates: 2_000 }
  : { rounds: 5, seconds: 3, warmupSeconds: 1, storeCreates: 5_000 };
/** How long a webhook round may take to deliver its events: the emulator finds due events by scanning. */
const DRAIN_TIMEOUT_MS = 600_000;
const CONNECTIONS = 50;
const TOKEN = `bench-${randomBytes(12).toString('base64url')}`;

/** One round of `count` creates, `CONNECTIONS` at a time, straight on the store. */
async function storeRound(store: MongoPlantStore, firstId: number, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let index = next++; index < count; index = next++) await store.create({ id: firstId + index, name: 'Monstera', tag: 'tropical' });
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return count / ((performance.now() - started) / 1000);
}

async function measureRecording(mongoUri: string): Promise<void> {
  const client = await new MongoClient(mongoUri).connect();
  const databases: Db[] = [];
  try {
    const database = (label: string) => {
      const db = client.db(`bench_webhooks_${label}_${randomBytes(3).toString('hex')}`);
      databases.push(db);
      return db;
    };
    const plainDb = database('plain');
    const recordingDb = database('recording');
    const { key, ...options } = DUE_INDEX;
    await recordingDb.collection(PLANTS_COLLECTION).createIndex(key, options, undefined);
    const stores = {
      plain: new MongoPlantStore(plainDb, { w: 'majority', journal: true }),
      recording: new MongoPlantStore(
        recordingDb,
        { w: 'majority', journal: true },
        { urls: ['http://127.0.0.1:9/hook'], changeUrls: [], changeQueueLimit: 1_000, recorded: () => undefined },
      ),
    };
    const rates: Record<keyof typeof stores, number[]> = { plain: [], recording: [] };
    let firstId = 1;
    for (let round = -1; round < plan.rounds; round += 1) {
      for (const kind of ['plain', 'recording'] as const) {
        const rate = await storeRound(stores[kind], firstId, plan.storeCreates);
        firstId += plan.storeCreates;
        // Round -1 warms up.
        if (round >= 0) rates[kind].push(rate);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const [plain, recording] = [median(rates.plain), median(rates.recording)];
    console.log(
      `\n1. Recording alone (MongoPlantStore.create in process, ${CONNECTIONS} at a time, ${plan.storeCreates} creates a round, ${plan.rounds} rounds):`,
    );
    console.log(`  without the event  ${Math.round(plain)} creates/s   (rounds: ${rates.plain.map(Math.round).join(' ')})`);
    console.log(`  with the event     ${Math.round(recording)} creates/s   (rounds: ${rates.recording.map(Math.round).join(' ')})`);
    console.log(
      `  ratio ${(recording / plain).toFixed(2)}; per create ${(1_000_000 / recording - 1_000_000 / plain).toFixed(0)} µs more wall time at this concurrency`,
    );
  } finally {
    for (const db of databases) await db.dropDatabase();
    await client.close();
  }
}

async function measureService(mongoUri: string): Promise<void> {
  const secret = newWebhookSecret();
  const receiver = await startWebhookReceiver({ secret });
  const base = { API_TOKENS: TOKEN, MONGODB_URI: mongoUri, MONGODB_WRITE_CONCERN: 'majority' };
  const servers = {
    plain: await ServerProcess.start({ server: 'service', store: 'mongo', env: base }),
    webhooks: await ServerProcess.start({
      server: 'service',
      store: 'mongo',
      env: { ...base, WEBHOOK_URLS: receiver.url(), WEBHOOK_SECRET: secret },
    }),
  };
  const drains: number[] = [];
  try {
    let created = 0;
    const load = async (kind: keyof typeof servers, seconds: number): Promise<MeasuredRound> => {
      const server = servers[kind];
      const before = await server.usage();
      const round = await runRound({
        url: server.url,
        requests: [createPlantRequest('/plants', TOKEN)],
        connections: CONNECTIONS,
        durationSeconds: seconds,
      });
      if (kind === 'webhooks') {
        created += round.requests;
        const draining = performance.now();
        await receiver.waitFor((received) => received.length >= created, DRAIN_TIMEOUT_MS);
        drains.push(performance.now() - draining);
      }
      // The CPU of delivering counts too: read after the events have gone out.
      const after = await server.usage();
      return { ...round, cpuMicrosPerRequest: (after.cpuMicros - before.cpuMicros) / round.requests };
    };
    await load('plain', plan.warmupSeconds);
    await load('webhooks', plan.warmupSeconds);
    drains.length = 0;
    const rounds: Record<keyof typeof servers, MeasuredRound[]> = { plain: [], webhooks: [] };
    for (let round = 0; round < plan.rounds; round += 1) {
      rounds.plain.push(await load('plain', plan.seconds));
      rounds.webhooks.push(await load('webhooks', plan.seconds));
    }
    const summaries: ContenderSummary[] = [
      { label: 'POST /plants, WEBHOOK_URLS unset', reference: false, rounds: rounds.plain },
      { label: 'POST /plants, WEBHOOK_URLS set (delivering)', reference: false, rounds: rounds.webhooks },
    ];
    console.log(`\n2. The whole service (autocannon, ${CONNECTIONS} connections, ${plan.rounds} interleaved rounds of ${plan.seconds} s):`);
    console.log(formatTable(summaries));
    const unverified = receiver.received.filter((request) => request.verifyError !== undefined).length;
    // Distinct ids tell a second delivery (at least once) from a create stored after autocannon stopped counting.
    const distinct = new Set(receiver.received.map(({ id }) => id)).size;
    console.log(
      `  events received ${receiver.received.length} (${distinct} distinct) of ${created} created (${unverified} failed verification)`,
    );
    console.log(
      `  after each webhook round, the rest of its events arrived within ${drains.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`,
    );
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await receiver.close();
  }
}

console.log(`Webhook cost${args.quick ? ' (--quick)' : ''}: ${describeMachine()}`);
const mongo = await resolveMongo({
  uri: process.env.MONGODB_URI,
  warn: (message: string) => {
    console.warn(message);
  },
});
console.log(`MongoDB: ${mongo.description} [${mongo.kind}]`);
try {
  await measureRecording(mongo.uri);
  await measureService(mongo.uri);
} finally {
  await mongo.stop();
}
