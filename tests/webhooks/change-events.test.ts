// Change events (WEBHOOK_CHANGE_URLS) from the app in process, to a receiver on 127.0.0.1 that verifies every
// request with the `standardwebhooks` package: their bodies and signatures, which changes send one, their order per
// plant with retries, and the tombstone a delete leaves while its event waits.
import { Long } from 'mongodb';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, type ReceivedWebhook } from '@plant-store/service-launcher';
import { authHeaders, postPlant } from '../helpers/app.js';
import { PlantChangeEventSchema } from '../../schemas/change-event.js';
import { int64Json } from '../../schemas/int64-json.js';
import type { EventDocument } from '../../server/webhooks/delivery-worker.js';
import { backlogOf, useWebhookReceiver } from '../helpers/webhooks.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An app sending change events to /changes (and, if asked, new plants to /new). */
function startApp(env: Record<string, string> = {}) {
  return hooks.startApp({
    env: {
      WEBHOOK_CHANGE_URLS: hooks.receiver.url('/changes'),
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
      ...env,
    },
  });
}

/** What came to `path` and was answered 2xx, in the order it came. */
function delivered(path = '/changes'): ReceivedWebhook[] {
  return hooks.receiver.received.filter((request) => request.path === path && accepted.has(request));
}
const accepted = new WeakSet<ReceivedWebhook>();

/** Answers `status(request, attempt)`, remembering which requests it accepted. */
function answer(status: (request: ReceivedWebhook, attempt: number) => number): void {
  hooks.receiver.respond = (request, attempt) => {
    const code = status(request, attempt);
    if (code >= 200 && code < 300) accepted.add(request);
    return code;
  };
}

const patch = (
  app: Awaited<ReturnType<typeof startApp>>['app'],
  id: string | number,
  body: unknown,
  headers: Record<string, string> = {},
) => app.inject({ method: 'PATCH', url: `/plants/${id}`, headers: { ...authHeaders(), ...headers }, payload: JSON.stringify(body) });
const remove = (app: Awaited<ReturnType<typeof startApp>>['app'], id: string | number) =>
  app.inject({ method: 'DELETE', url: `/plants/${id}`, headers: authHeaders() });
const get = (app: Awaited<ReturnType<typeof startApp>>['app'], url: string) => app.inject({ method: 'GET', url, headers: authHeaders() });

describe('change events', () => {
  it('a create, a change and a delete: plant.created, plant.updated, plant.deleted, signed, ids exact beyond 2^53', async () => {
    answer(() => 200);
    const { app } = await startApp();
    const id = '9007199254740993';
    const before = Date.now();
    expect((await postPlant(app, `{"id": ${id}, "name": "Fern", "tag": "shade"}`)).statusCode).toBe(200);
    expect((await patch(app, id, { name: 'Tree fern', tag: null })).statusCode).toBe(200);
    expect((await remove(app, id)).statusCode).toBe(204);
    await hooks.receiver.waitFor(() => delivered().length === 3);

    const requests = delivered();
    expect(requests.map((request) => request.body.replace(/"timestamp":"[^"]+"/, '"timestamp":"T"'))).toStrictEqual([
      `{"type":"plant.created","timestamp":"T","data":{"id":${id},"name":"Fern","tag":"shade"}}`,
      `{"type":"plant.updated","timestamp":"T","data":{"id":${id},"name":"Tree fern"}}`,
      `{"type":"plant.deleted","timestamp":"T","data":{"id":${id}}}`,
    ]);
    for (const request of requests) {
      // What /openapi.json declares for each event is what is sent.
      expect(PlantChangeEventSchema.parse(int64Json.parse(request.body))).toMatchObject({ data: { id: BigInt(id) } });
      expect(request.verifyError).toBeUndefined();
      const headers = request.headers as Record<string, string>;
      expect(new Webhook(SECRET).verify(request.body, headers)).toMatchObject({ data: {} });
      expect(() => new Webhook(newWebhookSecret()).verify(request.body, headers)).toThrow('No matching signature');
      expect(request.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
      expect(request.headers['content-type']).toBe('application/json');
      const { timestamp } = JSON.parse(request.body) as { timestamp: string };
      expect(timestamp).toMatch(RFC3339_MS);
      expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(timestamp)).toBeLessThanOrEqual(request.receivedAt);
    }
    expect(new Set(requests.map((request) => request.id)).size).toBe(3);
  });

  it('a PATCH that changes nothing ({} or the same values) sends nothing; one that does sends the plant as stored', async () => {
    answer(() => 200);
    const { app } = await startApp();
    await postPlant(app, { id: 1, name: 'Ivy', tag: 'climber' });
    await hooks.receiver.waitFor(() => delivered().length === 1);
    expect((await patch(app, 1, {})).statusCode).toBe(200);
    expect((await patch(app, 1, { name: 'Ivy', tag: 'climber' })).statusCode).toBe(200);
    expect((await patch(app, 1, { name: 'Ivy' })).statusCode).toBe(200);
    await sleep(400);
    expect(delivered()).toHaveLength(1);
    expect((await patch(app, 1, { tag: 'evergreen' })).statusCode).toBe(200);
    await hooks.receiver.waitFor(() => delivered().length === 2);
    expect(JSON.parse(delivered()[1]?.body ?? '')).toMatchObject({ type: 'plant.updated', data: { id: 1, name: 'Ivy', tag: 'evergreen' } });
  });

  it('WEBHOOK_URLS receivers get the bare NewPlant of each new plant and nothing else, a re-created plant included', async () => {
    answer(() => 200);
    const { app } = await startApp({ WEBHOOK_URLS: hooks.receiver.url('/new') });
    await postPlant(app, { id: 2, name: 'Oak' });
    // The new-plant event carries the plant as its delivery finds it: delivered before the change, it is the created one.
    await hooks.receiver.waitFor(() => delivered('/new').length === 1);
    await patch(app, 2, { tag: 'tree' });
    await remove(app, 2);
    await postPlant(app, { id: 2, name: 'Oak' });
    await hooks.receiver.waitFor(() => delivered().length === 4 && delivered('/new').length === 2);
    await sleep(300);
    expect(delivered('/new').map((request) => request.body)).toStrictEqual(['{"id":2,"name":"Oak"}', '{"id":2,"name":"Oak"}']);
    expect(delivered('/new').every((request) => request.verifyError === undefined)).toBe(true);
    expect(delivered().map((request) => (JSON.parse(request.body) as { type: string }).type)).toStrictEqual([
      'plant.created',
      'plant.updated',
      'plant.deleted',
      'plant.created',
    ]);
  });

  it('arrive in order per plant when every first attempt fails: none is sent before the one before it was delivered', async () => {
    answer((_request, attempt) => (attempt === 1 ? 503 : 200));
    const { app } = await startApp();
    await postPlant(app, { id: 3, name: 'Rose' });
    for (let n = 1; n <= 5; n += 1) expect((await patch(app, 3, { name: `Rose ${n}` })).statusCode).toBe(200);
    await remove(app, 3);
    await hooks.receiver.waitFor(() => delivered().length === 7);

    const names = delivered().map((request) => JSON.parse(request.body) as { type: string; data: { name?: string } });
    expect(names.map((event) => event.data.name ?? event.type)).toStrictEqual([
      'Rose',
      'Rose 1',
      'Rose 2',
      'Rose 3',
      'Rose 4',
      'Rose 5',
      'plant.deleted',
    ]);
    // Each event's first attempt came only after the event before it was delivered; retries keep their webhook-id.
    const all = hooks.receiver.received.filter((request) => request.path === '/changes');
    expect(all).toHaveLength(14);
    for (let index = 0; index < all.length; index += 2) {
      expect(all[index + 1]?.id).toBe(all[index]?.id);
      expect(accepted.has(all[index] as ReceivedWebhook)).toBe(false);
      expect(accepted.has(all[index + 1] as ReceivedWebhook)).toBe(true);
    }
  });

  it('per URL: a URL that keeps failing holds back its own next events, not those of another URL', async () => {
    answer((request) => (request.path === '/other' ? 503 : 200));
    const { app, plants } = await startApp({ WEBHOOK_CHANGE_URLS: `${hooks.receiver.url('/changes')},${hooks.receiver.url('/other')}` });
    await postPlant(app, { id: 12, name: 'Yarrow' });
    await patch(app, 12, { name: 'Milfoil' });
    await hooks.receiver.waitFor(() => delivered().length === 2);
    await hooks.receiver.waitFor((received) => received.filter((request) => request.path === '/other').length >= 3);
    const other = hooks.receiver.received.filter((request) => request.path === '/other');
    expect(new Set(other.map((request) => (JSON.parse(request.body) as { type: string }).type))).toStrictEqual(new Set(['plant.created']));
    // The worker records a delivery only after the receiver has answered it.
    const states = async () =>
      (await plants.findOne({ _id: Long.fromNumber(12) }))?.changes?.events.map((event) =>
        event.deliveries.map((delivery) => delivery.state),
      );
    await expect.poll(states, { timeout: 10_000 }).toStrictEqual([
      ['delivered', 'pending'],
      ['delivered', 'pending'],
    ]);
  });

  it("a change made while the plant's earlier event is being delivered is neither sent alongside it nor dropped by its release", async () => {
    const { app, plants } = await startApp();
    hooks.receiver.respond = (request) => {
      accepted.add(request);
      return (JSON.parse(request.body) as { type: string }).type === 'plant.created' ? { status: 200, afterMs: 400 } : 200;
    };
    await postPlant(app, { id: 9, name: 'Aloe' });
    await hooks.receiver.waitFor(() => delivered().length === 1);
    // The created event is in flight, under its lease: the change lands beside it.
    expect((await plants.findOne({ _id: Long.fromNumber(9) }))?.changes?.lease).toBeDefined();
    expect((await patch(app, 9, { name: 'Aloe vera' })).statusCode).toBe(200);
    await sleep(200);
    expect(delivered()).toHaveLength(1);
    await hooks.receiver.waitFor(() => delivered().length === 2);
    expect(delivered()[1]?.receivedAt).toBeGreaterThanOrEqual((delivered()[0]?.receivedAt ?? 0) + 400);
    expect(JSON.parse(delivered()[1]?.body ?? '')).toMatchObject({ type: 'plant.updated', data: { id: 9, name: 'Aloe vera' } });
  });

  it('a delete, then the same id created again while the delete is pending: created, deleted, created, with a new ETag', async () => {
    answer(() => 503);
    const { app, plants } = await startApp();
    const first = await postPlant(app, { id: 4, name: 'Moss' });
    expect((await remove(app, 4)).statusCode).toBe(204);
    const again = await postPlant(app, { id: 4, name: 'Moss' });
    expect(again.statusCode).toBe(200);
    // The same content, a new plant: its ETag is not the deleted plant's.
    expect(again.headers.etag).not.toBe(first.headers.etag);
    expect((await get(app, '/plants/4')).headers.etag).toBe(again.headers.etag);
    expect((await plants.findOne({ _id: Long.fromNumber(4) }))?.changes?.events.map((event) => event.type)).toStrictEqual([
      'plant.created',
      'plant.deleted',
      'plant.created',
    ]);
    answer(() => 200);
    await hooks.receiver.waitFor(() => delivered().length === 3, 20_000);
    expect(delivered().map((request) => request.body.replace(/"timestamp":"[^"]+"/, ''))).toStrictEqual([
      '{"type":"plant.created",,"data":{"id":4,"name":"Moss"}}',
      '{"type":"plant.deleted",,"data":{"id":4}}',
      '{"type":"plant.created",,"data":{"id":4,"name":"Moss"}}',
    ]);
  });

  it('a deleted plant waiting for its event is seen by no read, patch, delete or create; it goes once the event is delivered', async () => {
    answer(() => 503);
    const { app, plants } = await startApp();
    await postPlant(app, { id: 5, name: 'Fig', tag: 'tree' });
    await postPlant(app, { id: 6, name: 'Palm', tag: 'tree' });
    expect((await remove(app, 5)).statusCode).toBe(204);
    expect(await plants.findOne({ _id: Long.fromNumber(5) })).toMatchObject({ tombstone: true });

    expect((await get(app, '/plants/5')).statusCode).toBe(404);
    expect(JSON.parse((await get(app, '/plants')).body)).toStrictEqual([{ id: 6, name: 'Palm', tag: 'tree' }]);
    expect(JSON.parse((await get(app, '/plants?tag=tree')).body)).toStrictEqual([{ id: 6, name: 'Palm', tag: 'tree' }]);
    expect((await patch(app, 5, { name: 'Fig' })).statusCode).toBe(404);
    expect((await patch(app, 5, { name: 'Fig' }, { 'if-match': '*' })).statusCode).toBe(404);
    expect((await remove(app, 5)).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: '/plants/5', headers: { ...authHeaders(), 'if-match': '*' } })).statusCode).toBe(404);
    // Not a replay of the deleted plant, and no conflict with it: a new plant, with other content.
    const created = await postPlant(app, { id: 5, name: 'Olive' });
    expect(created.statusCode).toBe(200);
    expect(JSON.parse((await get(app, '/plants/5')).body)).toStrictEqual({ id: 5, name: 'Olive' });
    expect((await remove(app, 5)).statusCode).toBe(204);

    answer(() => 200);
    await hooks.receiver.waitFor(() => delivered().length === 5, 20_000);
    // Both outboxes settle once the worker has recorded the deliveries the receiver answered.
    const outboxes = async () => ({
      deleted: await plants.findOne({ _id: Long.fromNumber(5) }),
      kept: await plants.findOne({ _id: Long.fromNumber(6) }, { projection: { changes: 1 } }),
    });
    await expect.poll(outboxes, { timeout: 10_000 }).toStrictEqual({ deleted: null, kept: { _id: 6 } });
    // The id is free again, as after any delete.
    expect((await postPlant(app, { id: 5, name: 'Fig' })).statusCode).toBe(200);
  });

  it('twenty PATCHes at once with the same If-Match: one 200, nineteen 412, and one plant.updated', async () => {
    answer(() => 200);
    const { app } = await startApp();
    const created = await postPlant(app, { id: 10, name: 'Basil' });
    const etag = String(created.headers.etag);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => patch(app, 10, { name: `Basil ${n}` }, { 'if-match': etag })));
    expect(answers.map((answered) => answered.statusCode).sort()).toStrictEqual([200, ...Array<number>(19).fill(412)]);
    const winner = JSON.parse(answers.find((answered) => answered.statusCode === 200)?.body ?? '') as { name: string };
    await hooks.receiver.waitFor(() => delivered().length === 2);
    await sleep(300);
    expect(delivered().map((request) => JSON.parse(request.body) as { type: string; data: { name: string } })).toMatchObject([
      { type: 'plant.created', data: { name: 'Basil' } },
      { type: 'plant.updated', data: { name: winner.name } },
    ]);
  });

  it('waiting, are counted in the backlog the metrics read', async () => {
    answer(() => 503);
    const { app, db } = await startApp();
    await postPlant(app, { id: 11, name: 'Dill' });
    await patch(app, 11, { name: 'Fennel' });
    const plants = db.collection<EventDocument>('plants');
    // Read as of an hour on: due by then, whether retrying or claimed now.
    const inAnHour = new Date(Date.now() + 3_600_000);
    expect(await backlogOf(plants, inAnHour)).toMatchObject({ due: 1, failed: 0 });
  });

  it('as many waiting as WEBHOOK_CHANGE_QUEUE_LIMIT: a further change of that plant is refused (503), nothing else', async () => {
    answer(() => 503);
    const { app, plants } = await startApp({ WEBHOOK_CHANGE_QUEUE_LIMIT: '3', WEBHOOK_RETRY_BASE_MS: '500' });
    await postPlant(app, { id: 12, name: 'Rue' });
    expect((await patch(app, 12, { name: 'Rue 2' })).statusCode).toBe(200);
    const third = await patch(app, 12, { tag: 'herb' });
    expect(third.statusCode).toBe(200);

    /** The refusal, sent while no claim or release moved the plant's due time: Retry-After must say when it is. */
    const refusedWhileDue = async (send: () => ReturnType<typeof remove>) => {
      const queue = async () => (await plants.findOne({ _id: Long.fromNumber(12) }))?.changes;
      for (let attempt = 1; ; attempt += 1) {
        if (attempt > 50) throw new Error('the plant was claimed or released around each of 50 refusals');
        const before = await queue();
        const sentAt = Date.now();
        const refused = await send();
        const answeredAt = Date.now();
        const after = await queue();
        if (!before?.dueAt || !after || before.lease || after.lease || after.claims !== before.claims) continue;
        const dueAt = before.dueAt.getTime();
        expect(after.dueAt?.getTime()).toBe(dueAt);
        return {
          refused,
          earliest: Math.max(1, Math.ceil((dueAt - answeredAt) / 1000)),
          latest: Math.max(1, Math.ceil((dueAt - sentAt) / 1000)),
        };
      }
    };
    const refusals = [
      await refusedWhileDue(() => patch(app, 12, { name: 'Rue 4' })),
      await refusedWhileDue(() => patch(app, 12, { name: 'Rue 4' }, { 'if-match': String(third.headers.etag) })),
      await refusedWhileDue(() => remove(app, 12)),
      await refusedWhileDue(() => app.inject({ method: 'DELETE', url: '/plants/12', headers: { ...authHeaders(), 'if-match': '*' } })),
    ];
    for (const { refused, earliest, latest } of refusals) {
      expect(refused.statusCode).toBe(503);
      // When the plant's next delivery is due, in whole seconds, at least 1.
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(earliest);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(latest);
      expect(JSON.parse(refused.body)).toStrictEqual({
        error: 503,
        message:
          'the plant with id 12 has as many change events waiting for delivery as it can keep: try again once its webhook receivers take them',
      });
    }
    // A plant created again over its deleted self, whose queue is full, is refused too.
    await postPlant(app, { id: 14, name: 'Sorrel' });
    await patch(app, 14, { name: 'Sorrel 2' });
    expect((await remove(app, 14)).statusCode).toBe(204);
    const again = await postPlant(app, { id: 14, name: 'Sorrel' });
    expect(again.statusCode).toBe(503);
    expect((JSON.parse(again.body) as { message: string }).message).toMatch(/^the plant with id 14 has as many change events waiting/);
    const overTrpc = await app.inject({
      method: 'POST',
      url: '/trpc/updatePlant',
      headers: { ...authHeaders(), 'content-type': 'application/json' },
      payload: '{"id": 12, "name": "Rue 4"}',
    });
    expect(overTrpc.statusCode).toBe(503);
    expect(overTrpc.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(overTrpc.body)).toMatchObject({ error: { data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } });
    // Nothing changed; a PATCH that changes nothing, and other plants, go on.
    const unchanged = await get(app, '/plants/12');
    expect(JSON.parse(unchanged.body)).toStrictEqual({ id: 12, name: 'Rue 2', tag: 'herb' });
    expect(unchanged.headers.etag).toBe(third.headers.etag);
    expect((await patch(app, 12, { name: 'Rue 2' })).statusCode).toBe(200);
    expect((await postPlant(app, { id: 13, name: 'Chive' })).statusCode).toBe(200);

    // Once the receiver takes them, the plant changes again, and its events come in the order of the changes.
    answer(() => 200);
    await hooks.receiver.waitFor(() => delivered().filter((request) => request.body.includes('"id":12')).length === 3, 20_000);
    expect((await patch(app, 12, { name: 'Rue 4' })).statusCode).toBe(200);
    expect((await remove(app, 12)).statusCode).toBe(204);
    await hooks.receiver.waitFor(() => delivered().filter((request) => request.body.includes('"id":12')).length === 5, 20_000);
    expect(
      delivered()
        .filter((request) => request.body.includes('"id":12'))
        .map((request) => JSON.parse(request.body) as { type: string; data: unknown })
        .map(({ type, data }) => ({ type, data })),
    ).toStrictEqual([
      { type: 'plant.created', data: { id: 12, name: 'Rue' } },
      { type: 'plant.updated', data: { id: 12, name: 'Rue 2' } },
      { type: 'plant.updated', data: { id: 12, name: 'Rue 2', tag: 'herb' } },
      { type: 'plant.updated', data: { id: 12, name: 'Rue 4', tag: 'herb' } },
      { type: 'plant.deleted', data: { id: 12 } },
    ]);
  });

  it('events too large for fewer than WEBHOOK_CHANGE_QUEUE_LIMIT to fit the plant in 16 MiB: refused (503) when the next would not, not 500', async () => {
    // Four URLs of 200,000 characters: each event carries them, about 800 KB, so some twenty fill MongoDB's 16 MiB.
    const urls = [1, 2, 3, 4].map((n) => `http://127.0.0.1:9/changes${n}?k=${'q'.repeat(200_000)}`);
    const { app, plants } = await startApp({
      WEBHOOK_CHANGE_URLS: urls.join(','),
      WEBHOOK_CHANGE_QUEUE_LIMIT: '10000',
      WEBHOOK_RETRY_BASE_MS: '600000',
    });
    await postPlant(app, { id: 15, name: 'Tansy' });
    let changed = 0;
    let refused: Awaited<ReturnType<typeof patch>> | undefined;
    while (refused === undefined && changed < 100) {
      const answer = await patch(app, 15, { name: `Tansy ${changed + 1}` });
      if (answer.statusCode === 200) changed += 1;
      else refused = answer;
    }
    expect(changed).toBeGreaterThan(10);
    expect(changed).toBeLessThan(30);
    expect(refused?.statusCode).toBe(503);
    expect((JSON.parse(refused?.body ?? '') as { message: string }).message).toMatch(
      /^the plant with id 15 has as many change events waiting/,
    );
    // Due after the retry base (ten minutes), or at the claim's end, and nothing changed.
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse((await get(app, '/plants/15')).body)).toStrictEqual({ id: 15, name: `Tansy ${changed}` });
    expect((await remove(app, 15)).statusCode).toBe(503);
    expect((await plants.findOne({ _id: Long.fromNumber(15) }))?.changes?.events).toHaveLength(changed + 1);
  });

  it('given up on after WEBHOOK_MAX_ATTEMPTS, an event lets the next one go', async () => {
    answer((request) => ((JSON.parse(request.body) as { type: string }).type === 'plant.created' ? 500 : 200));
    const { app } = await startApp({ WEBHOOK_MAX_ATTEMPTS: '2' });
    await postPlant(app, { id: 7, name: 'Sage' });
    await patch(app, 7, { name: 'Thyme' });
    await hooks.receiver.waitFor(() => delivered().length === 1);
    const all = hooks.receiver.received.filter((request) => request.path === '/changes');
    expect(all.map((request) => (JSON.parse(request.body) as { type: string }).type)).toStrictEqual([
      'plant.created',
      'plant.created',
      'plant.updated',
    ]);
  });
});

describe('without WEBHOOK_CHANGE_URLS', () => {
  it('a delete removes the document, as it always did, and no change is recorded', async () => {
    const { app, plants } = await hooks.startApp({ env: { WEBHOOK_URLS: hooks.receiver.url('/new'), WEBHOOK_SECRET: SECRET } });
    await postPlant(app, { id: 8, name: 'Mint' });
    await patch(app, 8, { name: 'Spearmint' });
    expect((await plants.findOne({ _id: Long.fromNumber(8) }))?.changes).toBeUndefined();
    expect((await remove(app, 8)).statusCode).toBe(204);
    expect(await plants.findOne({ _id: Long.fromNumber(8) })).toBeNull();
  });
});
