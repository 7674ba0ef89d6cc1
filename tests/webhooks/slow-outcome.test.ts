// An outcome MongoDB is slow to record: the instance that made the attempt renews its lease and
// writes the outcome again until MongoDB takes it, so another instance never repeats a delivery the
// receiver already has.
import type { Document } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { postPlant, testMongoUri } from '../helpers/app.js';
import { allIn, useWebhookReceiver, waitForEvent, webhookEnv } from '../helpers/webhooks.js';
import { isCommand, startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);
let proxy: MongoWireProxy;

beforeAll(async () => {
  proxy = await startMongoWireProxy(testMongoUri());
});
afterEach(() => {
  proxy.fault = 'none';
  proxy.faultOn = isCommand('insert');
});
afterAll(async () => {
  await proxy.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An update that records a delivery's outcome (not one that only renews a lease). */
function recordsAnOutcome(command: Document): boolean {
  if (!isCommand('update')(command)) return false;
  const statements = (command.updates as { u?: { $set?: Document } }[] | undefined) ?? [];
  return statements.some((statement) => Object.keys(statement.u?.$set ?? {}).some((field) => field.startsWith('webhook.deliveries.')));
}

/**
 * Two instances on one MongoDB; the first, which reaches it through the proxy, creates plant 1 and
 * makes the attempt, then every command `lost` picks is lost on the way for `forMs`; the second
 * instance starts looking for due events once the receiver has the attempt.
 */
async function deliverWhileLost(lost: (command: Document) => boolean, forMs: number): Promise<void> {
  const uri = testMongoUri();
  const dbName = new ConnectionString(uri).pathname.slice(1);
  // The lease: WEBHOOK_TIMEOUT_MS + 2 × MONGODB_TIMEOUT_MS + 1 s = 3 s.
  const settings = { WEBHOOK_TIMEOUT_MS: '1000', MONGODB_TIMEOUT_MS: '500' };
  const cutOff = await hooks.startApp({ env: webhookEnv([hooks.receiver.url()], SECRET, { ...settings, MONGODB_URI: proxy.uri(dbName) }) });
  const other = await hooks.startApp({ env: webhookEnv([hooks.receiver.url()], SECRET, { ...settings, MONGODB_URI: uri }) });
  await cutOff.app.ready();
  proxy.faultOn = lost;
  proxy.fault = 'lostCommand';
  expect((await postPlant(cutOff.app, { id: 1, name: 'Fern' })).statusCode).toBe(200);
  await hooks.receiver.waitFor((received) => received.length === 1);
  await other.app.ready();
  await sleep(forMs);
  proxy.fault = 'none';

  await waitForEvent(other.plants, 1, allIn('delivered'));
  // Past the end of the first lease, and two polls of the other instance.
  await sleep(3_500);
  expect(hooks.receiver.received).toHaveLength(1);
  const event = await waitForEvent(other.plants, 1, allIn('delivered'));
  expect(event).toMatchObject({ claims: 1, deliveries: [{ state: 'delivered', attempts: 1 }] });
}

describe('two instances; the one that made the attempt cannot record its outcome at once', () => {
  it('every update lost for longer than MONGODB_TIMEOUT_MS: the outcome is written again when MongoDB answers, and not sent again', async () => {
    await deliverWhileLost(isCommand('update'), 1_200);
  });

  it('the outcome lost for longer than the lease: the lease is renewed meanwhile, and the other instance does not take the event over', async () => {
    await deliverWhileLost(recordsAnOutcome, 4_500);
  });
});
