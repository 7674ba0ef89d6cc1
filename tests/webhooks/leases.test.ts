// Deliveries are driven from MongoDB: claims are leases there, a claim whose lease ran out is taken
// over, one still held is left alone, and closing the app finishes or releases what is in flight.
import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { buildApp } from '../../server/app.js';
import type { PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { newWebhookRecord } from '../../server/webhooks/webhook-record.js';
import { authHeaders, postPlant, testConfig, testMongoUri } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';
import { allIn, eventOf, waitForEvent, webhookEnv, useWebhookReceiver } from '../helpers/webhooks.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

describe('closing the app', () => {
  it('releases a delivery still waiting for its answer: due again at once, no attempt counted, sent again with the same webhook-id', async () => {
    hooks.receiver.respond = () => 'hang';
    const env = webhookEnv([hooks.receiver.url()], SECRET, { MONGODB_URI: testMongoUri(), WEBHOOK_TIMEOUT_MS: '10000' });
    const closing = await buildApp(testConfig(env));
    await postPlant(closing, { id: 1, name: 'Fern' });
    await hooks.receiver.waitFor((received) => received.length === 1);

    const started = performance.now();
    await closing.close();
    // Up to 2 s for the answer, then it is given up: well within WEBHOOK_TIMEOUT_MS.
    expect(performance.now() - started).toBeLessThan(3_500);

    hooks.receiver.respond = () => 200;
    const t = await hooks.startApp({ env });
    const released = await eventOf(t.plants, 1);
    expect(released?.deliveries[0]).toMatchObject({ state: 'pending', attempts: 0 });
    expect(released?.lease).toBeUndefined();
    expect(released?.dueAt?.getTime()).toBeLessThanOrEqual(Date.now());

    await t.app.ready();
    await waitForEvent(t.plants, 1, allIn('delivered'));
    expect(hooks.receiver.received).toHaveLength(2);
    expect(hooks.receiver.received[1]?.id).toBe(hooks.receiver.received[0]?.id);
  });

  it('finishes a delivery whose answer comes in time', async () => {
    hooks.receiver.respond = () => ({ status: 200, afterMs: 700 });
    const t = await hooks.startApp({ env: webhookEnv([hooks.receiver.url()], SECRET, { WEBHOOK_TIMEOUT_MS: '10000' }) });
    await postPlant(t.app, { id: 2, name: 'Ivy' });
    await hooks.receiver.waitFor((received) => received.length === 1);
    const started = performance.now();
    await t.app.close();
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(await eventOf(t.plants, 2)).toMatchObject({ deliveries: [{ state: 'delivered', attempts: 1 }] });
    expect(hooks.receiver.received).toHaveLength(1);
  });
});

describe('a plant deleted while its event is being delivered', () => {
  it('is no lost lease: nothing is logged as a warning', async () => {
    const logs = captureLogs();
    hooks.receiver.respond = () => ({ status: 200, afterMs: 500 });
    // Change events keep a deleted plant's document, so the delete clears the new-plant record the attempt holds.
    const t = await hooks.startApp({
      env: webhookEnv([hooks.receiver.url('/new')], SECRET, { WEBHOOK_CHANGE_URLS: hooks.receiver.url('/changes'), LOG_LEVEL: 'debug' }),
      overrides: { logStream: logs.stream },
    });
    await postPlant(t.app, { id: 40, name: 'Elm' });
    await hooks.receiver.waitFor((received) => received.some((request) => request.path === '/new'));
    const deleted = await t.app.inject({ method: 'DELETE', url: '/plants/40', headers: authHeaders() });
    expect(deleted.statusCode).toBe(204);
    await expect
      .poll(() => logs.lines().map((line) => line.msg))
      .toContain('webhooks: the plant was deleted while its event was being delivered');
    expect(logs.lines().filter((line) => (line.level as number) >= 40)).toStrictEqual([]);
  });
});

describe('the due index', () => {
  it('is sparse on webhook.dueAt; one MongoDB refuses is logged, and events are delivered all the same', async () => {
    const logs = captureLogs();
    const t = await hooks.startApp({
      env: webhookEnv([hooks.receiver.url()], SECRET, { LOG_LEVEL: 'error' }),
      overrides: { logStream: logs.stream },
    });
    // Same keys, other options: createIndex fails with IndexOptionsConflict.
    await t.plants.createIndex({ 'webhook.dueAt': 1 }, { name: 'dueAt_plain' }, undefined);
    await postPlant(t.app, { id: 30, name: 'Ash' });
    await waitForEvent(t.plants, 30, allIn('delivered'));
    expect(logs.lines().map((line) => line.msg)).toContain(
      'webhooks: could not create the index webhook_dueAt; due events are found by scanning the collection',
    );

    const other = await hooks.startApp({ env: webhookEnv([hooks.receiver.url()], SECRET) });
    await other.app.ready();
    await expect
      .poll(async () => (await other.plants.indexes()).find((index) => index.name === 'webhook_dueAt'))
      .toMatchObject({ key: { 'webhook.dueAt': 1 }, sparse: true });
  });
});

describe('leases', () => {
  it('take over a claim whose lease ran out (its instance died) and leave one still held alone', async () => {
    const env = webhookEnv([hooks.receiver.url()], SECRET);
    const t = await hooks.startApp({ env });
    const now = new Date();
    const claimed = (id: number, leaseEndsAt: Date): PlantDocument => {
      const webhook = newWebhookRecord([hooks.receiver.url()], now, { name: `plant ${id}` });
      return {
        _id: Long.fromNumber(id),
        name: `plant ${id}`,
        createdAt: now,
        webhook: { ...webhook, dueAt: leaseEndsAt, lease: { owner: 'dead-instance', token: 'gone' }, claims: 1 },
      };
    };
    await t.plants.insertMany([claimed(10, new Date(now.getTime() - 1)), claimed(11, new Date(now.getTime() + 60_000))]);

    await t.app.ready();
    const taken = await waitForEvent(t.plants, 10, allIn('delivered'));
    expect(taken.claims).toBe(2);
    // The worker polls every second; give it two looks.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(hooks.receiver.received.map((request) => request.body)).toStrictEqual(['{"id":10,"name":"plant 10"}']);
    expect(await eventOf(t.plants, 11)).toMatchObject({
      claims: 1,
      lease: { owner: 'dead-instance', token: 'gone' },
      deliveries: [{ state: 'pending', attempts: 0 }],
    });
  });

  it('are taken by an instance with WEBHOOK_SECRET alone: it delivers events recorded by others, and records none itself', async () => {
    const t = await hooks.startApp({ env: { WEBHOOK_SECRET: SECRET } });
    const now = new Date();
    await t.plants.insertOne({
      _id: Long.fromNumber(20),
      name: 'Announced',
      createdAt: now,
      webhook: newWebhookRecord([hooks.receiver.url()], now, { name: 'Announced' }),
    });
    await postPlant(t.app, { id: 21, name: 'Not announced' });
    await waitForEvent(t.plants, 20, allIn('delivered'));
    expect(hooks.receiver.received.map((request) => request.body)).toStrictEqual(['{"id":20,"name":"Announced"}']);
    expect((await t.plants.findOne({ _id: Long.fromNumber(21) }))?.webhook).toBeUndefined();
  });
});
