// A receiver that takes the connection and never answers, with the garbage collector running all
// the time: every attempt still ends within WEBHOOK_TIMEOUT_MS, each event is retried and given up
// as documented, and deliveries to a healthy receiver go on meanwhile.
import { Long, MongoClient, type Collection } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, startService, startWebhookReceiver } from '@plant-store/service-launcher';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { testMongoUri } from '../helpers/app.js';
import { postJson } from '../helpers/http-post.js';

const TOKEN = 'webhook-timeouts-token';
const SECRET = newWebhookSecret();
const TIMEOUT_MS = 1_000;
const MAX_ATTEMPTS = 3;
/** More events than the worker's 16 slots: a wedged attempt would hold every slot. */
const EVENTS = 20;

let client: MongoClient;
beforeAll(async () => {
  client = await new MongoClient(testMongoUri()).connect();
});
afterAll(async () => {
  await client.close();
});

describe('a receiver that never answers, under frequent garbage collections', () => {
  it('each attempt ends within WEBHOOK_TIMEOUT_MS, each event is given up after WEBHOOK_MAX_ATTEMPTS, and a healthy receiver gets every event meanwhile', async () => {
    const uri = testMongoUri();
    const db = client.db(new ConnectionString(uri).pathname.slice(1));
    const plants: Collection<PlantDocument> = db.collection<PlantDocument>('plants');
    const silent = await startWebhookReceiver({ secret: SECRET });
    silent.respond = () => 'hang';
    const healthy = await startWebhookReceiver({ secret: SECRET });
    const env = {
      MONGODB_URI: uri,
      API_TOKENS: TOKEN,
      LOG_LEVEL: 'warn',
      WEBHOOK_URLS: `${silent.url('/silent')},${healthy.url('/healthy')}`,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      MONGODB_TIMEOUT_MS: '1000',
    };
    // A young generation of 1 MB, and every collection a full one: a full garbage collection every few hundred KB allocated.
    const service = await startService(env, { nodeFlags: ['--max-semi-space-size=1', '--gc-global'] });
    const churning = new AbortController();
    // Garbage for the collector while attempts wait: the OpenAPI document, over and over (bounded by the test's end).
    const churn = (async () => {
      while (!churning.signal.aborted)
        await fetch(`${service.url}/openapi.json`).then(
          (response) => response.arrayBuffer(),
          () => undefined,
        );
    })();
    try {
      const createdAt = Date.now();
      for (let id = 1; id <= EVENTS; id += 1)
        expect((await postJson(`${service.url}/plants`, { id, name: `Plant ${id}` }, TOKEN)).status).toBe(200);
      // Attempts 1 and 2 time out, each retry waits its backoff (at most 2 × 100 ms, then 4 × 100 ms with
      // jitter), attempt 3 times out: about 3.6 s per event, all events at once. 15 s is ample.
      await healthy.waitFor((received) => received.length >= EVENTS, 15_000);
      await silent.waitFor((received) => received.length >= EVENTS * MAX_ATTEMPTS, 15_000);
      // More events after the silent receiver has held every slot: they reach the healthy one too.
      for (let id = EVENTS + 1; id <= 2 * EVENTS; id += 1)
        expect((await postJson(`${service.url}/plants`, { id, name: `Plant ${id}` }, TOKEN)).status).toBe(200);
      await healthy.waitFor((received) => received.length >= 2 * EVENTS, 15_000);

      const deadline = Date.now() + 20_000;
      const failedSilent = async () =>
        (await plants.find({ 'webhook.deliveries.0.state': 'failed' }).toArray()).filter((document) => Number(document._id) <= EVENTS);
      while ((await failedSilent()).length < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const first = await plants
        .find({ _id: { $lte: Long.fromNumber(EVENTS) } })
        .sort({ _id: 1 })
        .toArray();
      expect(first).toHaveLength(EVENTS);
      for (const document of first) {
        const [toSilent, toHealthy] = document.webhook?.deliveries ?? [];
        expect(toSilent).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, lastError: `no answer within ${TIMEOUT_MS} ms` });
        expect(toHealthy).toMatchObject({ state: 'delivered', attempts: 1 });
        // Three attempts of a second each, never cut short, and two short backoffs: never minutes.
        const failedAfter = (toSilent?.failedAt?.getTime() ?? Infinity) - createdAt;
        expect(failedAfter).toBeGreaterThanOrEqual(MAX_ATTEMPTS * TIMEOUT_MS);
        expect(failedAfter).toBeLessThan(15_000);
      }
      // Each event reached the silent receiver exactly MAX_ATTEMPTS times, each attempt ending (its connection closed by
      // the service) within the timeout and before the next began. Judged where the receiver saw them: on a busy
      // machine a request can reach it late, so the gap between two arrivals says nothing of the timeout.
      for (const document of first) {
        const id = document.webhook?.deliveries[0]?.id;
        const attempts = silent.received.filter((request) => request.id === id);
        expect(attempts).toHaveLength(MAX_ATTEMPTS);
        for (const [index, { receivedAt, settledAt = Infinity }] of attempts.entries()) {
          expect(settledAt - receivedAt).toBeLessThan(TIMEOUT_MS + 3_000);
          expect(attempts[index + 1]?.receivedAt ?? Infinity).toBeGreaterThanOrEqual(settledAt);
        }
      }
      const errors = service
        .output()
        .split('\n')
        .filter((line) => line.includes('webhook delivery failed: no further attempts'));
      expect(errors.length).toBeGreaterThanOrEqual(EVENTS);
      // Sixteen attempts at once each listen for the shutdown: no warning of a listener leak.
      expect(service.output()).not.toContain('MaxListenersExceededWarning');
      churning.abort();
      await churn;
      expect(await service.stop('SIGTERM')).toBe(0);
    } finally {
      churning.abort();
      await churn;
      await service.stop('SIGKILL');
      await silent.close();
      await healthy.close();
      await db.dropDatabase();
    }
  }, 90_000);
});
