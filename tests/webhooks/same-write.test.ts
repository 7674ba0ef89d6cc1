// The event is recorded by the insert that stores the plant, seen on the wire between the service
// and MongoDB: no plant without its event, no event without its plant, and a create retried after
// an unacknowledged insert sends its event once.
import { Int32, type Document } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import { postPlant, startTestApp, testMongoUri, type TestApp } from '../helpers/app.js';
import { allIn, waitForEvent, webhookEnv } from '../helpers/webhooks.js';
import { startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

const SECRET = newWebhookSecret();
let proxy: MongoWireProxy;
let receiver: WebhookReceiver;
let t: TestApp;

beforeAll(async () => {
  proxy = await startMongoWireProxy(testMongoUri());
  receiver = await startWebhookReceiver({ secret: SECRET });
  const dbName = new ConnectionString(testMongoUri()).pathname.slice(1);
  t = await startTestApp({ env: webhookEnv([receiver.url()], SECRET, { MONGODB_URI: proxy.uri(dbName), MONGODB_TIMEOUT_MS: '1000' }) });
});
afterAll(async () => {
  proxy.fault = 'none';
  await t.close();
  await receiver.close();
  await proxy.close();
});

/** The documents of every insert command the service sent for plant `id`. */
const insertsOf = (id: number) =>
  proxy.commands
    .flatMap((command) => ('insert' in command ? ((command.documents as Document[] | undefined) ?? []) : []))
    .filter((document) => Number(document._id) === id);

describe('the event on the wire', () => {
  it('is part of the one insert that stores the plant', async () => {
    expect((await postPlant(t.app, { id: 1, name: 'Fern' })).statusCode).toBe(200);
    const inserts = insertsOf(1);
    expect(inserts).toHaveLength(1);
    // The proxy keeps BSON types as sent: attempts is an Int32.
    expect(inserts[0]).toMatchObject({
      name: 'Fern',
      webhook: { deliveries: [{ url: receiver.url(), state: 'pending', attempts: new Int32(0) }] },
    });
  });

  it('of a create whose insert was not acknowledged (503) is sent once, after the retry is answered 200', async () => {
    proxy.fault = 'writeConcernError';
    expect((await postPlant(t.app, { id: 2, name: 'Ivy' })).statusCode).toBe(503);
    proxy.fault = 'none';
    expect((await postPlant(t.app, { id: 2, name: 'Ivy' })).statusCode).toBe(200);
    await waitForEvent(t.plants, 2, allIn('delivered'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((request) => request.body === '{"id":2,"name":"Ivy"}')).toHaveLength(1);
  });
});
