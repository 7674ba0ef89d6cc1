// The new-plant webhook from the app in process, to a receiver on 127.0.0.1 that verifies every
// request with the `standardwebhooks` package: what is sent, signed how, and once per URL.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { buildApp, createAppCaller } from '../../server/app.js';
import { authHeaders, postPlant, testConfig, testMongoUri, TEST_TOKEN } from '../helpers/app.js';
import { allIn, waitForEvent, webhookEnv, useWebhookReceiver } from '../helpers/webhooks.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

async function appSendingTo(paths: string[], env: Record<string, string> = {}): ReturnType<typeof hooks.startApp> {
  return hooks.startApp({
    env: webhookEnv(
      paths.map((path) => hooks.receiver.url(path)),
      SECRET,
      env,
    ),
  });
}

describe('each new plant', () => {
  it('is POSTed to the URL as the stored NewPlant, with Standard Webhooks headers that standardwebhooks verifies', async () => {
    const { app } = await appSendingTo(['/a']);
    expect((await postPlant(app, { id: 1, name: 'Monstera', tag: 'tropical' })).statusCode).toBe(200);
    await hooks.receiver.waitFor((received) => received.length === 1);

    const [request] = hooks.receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/a');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toBe('{"id":1,"name":"Monstera","tag":"tropical"}');
    expect(request?.verifyError).toBeUndefined();
    expect(request?.verified).toStrictEqual({ id: 1, name: 'Monstera', tag: 'tropical' });
    expect(request?.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(Math.abs(Number(request?.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('carries ids beyond 2^53 exactly, at both ends of int64; a delete sends nothing', async () => {
    const { app } = await appSendingTo(['/a']);
    for (const id of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) {
      expect((await postPlant(app, `{"id": ${id}, "name": "Big"}`)).statusCode).toBe(200);
    }
    await hooks.receiver.waitFor((received) => received.length === 3);
    expect(hooks.receiver.received.map((request) => request.body).sort()).toStrictEqual([
      '{"id":-9223372036854775808,"name":"Big"}',
      '{"id":9007199254740993,"name":"Big"}',
      '{"id":9223372036854775807,"name":"Big"}',
    ]);
    const deleted = await app.inject({ method: 'DELETE', url: '/plants/9007199254740993', headers: authHeaders() });
    expect(deleted.statusCode).toBe(204);
    // Time for a wrongly sent event to arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.receiver.received).toHaveLength(3);
  });

  it('sends the plant as created, though it was changed before the event could be delivered', async () => {
    hooks.receiver.respond = (_request, attempt) => (attempt === 1 ? 503 : 200);
    const { app } = await appSendingTo(['/a'], { WEBHOOK_RETRY_BASE_MS: '300' });
    expect((await postPlant(app, { id: 5, name: 'Fern', tag: 'shade' })).statusCode).toBe(200);
    await hooks.receiver.waitFor((received) => received.length === 1);
    const changed = await app.inject({
      method: 'PATCH',
      url: '/plants/5',
      headers: { ...authHeaders(), 'content-type': 'application/merge-patch+json' },
      payload: '{"name": "Tree fern", "tag": null}',
    });
    expect(changed.statusCode).toBe(200);
    await hooks.receiver.waitFor((received) => received.length === 2);
    expect(hooks.receiver.received.map((request) => request.body)).toStrictEqual([
      '{"id":5,"name":"Fern","tag":"shade"}',
      '{"id":5,"name":"Fern","tag":"shade"}',
    ]);
  });

  it('is not sent once the plant is deleted before its delivery: the pending event goes with the plant', async () => {
    hooks.receiver.respond = () => 503;
    const { app } = await appSendingTo(['/a'], { WEBHOOK_RETRY_BASE_MS: '300' });
    expect((await postPlant(app, { id: 6, name: 'Fern' })).statusCode).toBe(200);
    await hooks.receiver.waitFor((received) => received.length === 1);
    expect((await app.inject({ method: 'DELETE', url: '/plants/6', headers: authHeaders() })).statusCode).toBe(204);
    hooks.receiver.respond = () => 200;
    // Several retry intervals: time for a kept event to be sent again.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(hooks.receiver.received).toHaveLength(1);
  });

  it('is signed over the exact body with this secret: another body or another secret does not verify', async () => {
    const { app } = await appSendingTo(['/a']);
    await postPlant(app, { id: 2, name: 'Fern' });
    await hooks.receiver.waitFor((received) => received.length === 1);
    const [request] = hooks.receiver.received;
    const headers = request?.headers as Record<string, string>;
    expect(new Webhook(SECRET).verify(request?.body ?? '', headers)).toStrictEqual({ id: 2, name: 'Fern' });
    expect(() => new Webhook(SECRET).verify('{"id":3,"name":"Fern"}', headers)).toThrow('No matching signature');
    expect(() => new Webhook(newWebhookSecret()).verify(request?.body ?? '', headers)).toThrow('No matching signature');
  });

  it('is signed with each of several secrets (WEBHOOK_SECRET="old new"): a receiver holding either one verifies it', async () => {
    const next = newWebhookSecret();
    const { app } = await hooks.startApp({ env: webhookEnv([hooks.receiver.url('/a')], `${SECRET} ${next}`) });
    await postPlant(app, { id: 4, name: 'Rotated' });
    await hooks.receiver.waitFor((received) => received.length === 1);
    const [request] = hooks.receiver.received;
    const headers = request?.headers as Record<string, string>;
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    // The receiver (the old secret) verified it as it came; one that moved to the new secret does too.
    expect(request?.verified).toStrictEqual({ id: 4, name: 'Rotated' });
    expect(new Webhook(next).verify(request?.body ?? '', headers)).toStrictEqual({ id: 4, name: 'Rotated' });
    expect(() => new Webhook(newWebhookSecret()).verify(request?.body ?? '', headers)).toThrow('No matching signature');
  });

  it('goes out once from POST /plants, /trpc/createPlant and createCaller alike; a replay of a stored create sends nothing', async () => {
    // createCaller runs on the store of an app of its own (its worker delivering), on the same database.
    const env = webhookEnv([hooks.receiver.url('/a')], SECRET, { MONGODB_URI: testMongoUri() });
    const { app } = await hooks.startApp({ env });
    const inProcess = await buildApp(testConfig(env));
    await inProcess.ready();
    const caller = () => createAppCaller(inProcess, `Bearer ${TEST_TOKEN}`);
    try {
      expect((await postPlant(app, { id: 10, name: 'Rest' })).statusCode).toBe(200);
      const trpc = await app.inject({
        method: 'POST',
        url: '/trpc/createPlant',
        headers: authHeaders(),
        payload: { id: 11, name: 'Trpc', tag: 't' },
      });
      expect(trpc.statusCode).toBe(200);
      await expect(caller().createPlant({ id: 12, name: 'Caller' })).resolves.toStrictEqual({ name: 'Caller' });
      // Replays, over each way in: answered 200, stored already, so no second event.
      expect((await postPlant(app, { id: 11, name: 'Trpc', tag: 't' })).statusCode).toBe(200);
      await expect(caller().createPlant({ id: 10, name: 'Rest' })).resolves.toStrictEqual({ name: 'Rest' });

      await hooks.receiver.waitFor((received) => received.length >= 3);
      // Time for a wrongly recorded fourth event to be sent too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hooks.receiver.received.map((request) => request.body).sort()).toStrictEqual([
        '{"id":10,"name":"Rest"}',
        '{"id":11,"name":"Trpc","tag":"t"}',
        '{"id":12,"name":"Caller"}',
      ]);
      expect(new Set(hooks.receiver.received.map((request) => request.id)).size).toBe(3);
      expect(hooks.receiver.received.every((request) => request.verifyError === undefined)).toBe(true);
    } finally {
      await inProcess.close();
    }
  });

  it('goes to every URL, with a webhook-id of its own for each URL and each event', async () => {
    const { app, plants } = await appSendingTo(['/a', '/b']);
    await postPlant(app, { id: 20, name: 'Ivy' });
    await postPlant(app, { id: 21, name: 'Oak' });
    await hooks.receiver.waitFor((received) => received.length === 4);
    const ids = hooks.receiver.received.map((request) => request.id);
    expect(new Set(ids).size).toBe(4);
    expect(hooks.receiver.received.filter((request) => request.path === '/a')).toHaveLength(2);
    expect(hooks.receiver.received.filter((request) => request.path === '/b')).toHaveLength(2);
    const event = await waitForEvent(plants, 20, allIn('delivered'));
    expect(event.deliveries.map(({ url, state, attempts }) => ({ url, state, attempts }))).toStrictEqual([
      { url: hooks.receiver.url('/a'), state: 'delivered', attempts: 1 },
      { url: hooks.receiver.url('/b'), state: 'delivered', attempts: 1 },
    ]);
    // Nothing left for the worker: the event has left the due index.
    expect(event.dueAt).toBeUndefined();
    expect(event.lease).toBeUndefined();
  });

  it('does not wait for the receiver: a create answers while the receiver has not', async () => {
    hooks.receiver.respond = () => 'hang';
    const { app } = await appSendingTo(['/a'], { WEBHOOK_TIMEOUT_MS: '5000' });
    await app.ready();
    const started = performance.now();
    expect((await postPlant(app, { id: 30, name: 'Palm' })).statusCode).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
    await hooks.receiver.waitFor((received) => received.length === 1);
  });
});

describe('no events', () => {
  it('are recorded without WEBHOOK_URLS: the document is what it was', async () => {
    const t = await hooks.startApp({});
    await postPlant(t.app, { id: 40, name: 'Cactus' });
    const document = await t.plants.findOne({});
    expect(Object.keys(document ?? {}).sort()).toStrictEqual(['_id', 'createdAt', 'name']);
  });
});
