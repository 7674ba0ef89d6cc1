// Failed deliveries stay in MongoDB, and `npm run webhooks:failed` (the built CLI) lists them and
// replays them: the running service then delivers them with their original webhook-id. A change event given up on is
// kept as its URL's miss of the plant, listed, and resynced with the plant as it is when replayed.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, type ReceivedWebhook } from '@plant-store/service-launcher';
import { authHeaders, postPlant, testMongoUri } from '../helpers/app.js';
import { allIn, backlogOf, useWebhookReceiver, waitForEvent, webhookEnv } from '../helpers/webhooks.js';
import { int64Json } from '../../schemas/int64-json.js';
import { MongoPlantStore, type PlantDocument } from '../../server/plants/mongo-plant-store.js';
import { missedAfter, newChangeEvent, type MissedChange } from '../../server/webhooks/change-record.js';
import type { EventDocument } from '../../server/webhooks/delivery-worker.js';
import { listMissed, resyncMissed, type MissedDocument } from '../../server/webhooks/missed-changes.js';
import { missedAndDone, racedBy as raced, runCli, waitForDocument } from '../helpers/failed-events.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);

describe('npm run webhooks:failed', () => {
  it('lists the deliveries given up on, and --replay sends them again with the same webhook-id', async () => {
    // Fern's receiver keeps failing; Ivy's answers 410 Gone, given up on after one attempt.
    hooks.receiver.respond = (request) => (request.body.includes('"Ivy"') ? 410 : 500);
    const uri = testMongoUri();
    const { app, plants } = await hooks.startApp({
      env: webhookEnv([hooks.receiver.url()], SECRET, { MONGODB_URI: uri, WEBHOOK_MAX_ATTEMPTS: '2' }),
    });
    await postPlant(app, { id: 7, name: 'Fern' });
    await postPlant(app, { id: 8, name: 'Ivy' });
    const failed = await waitForEvent(plants, 7, allIn('failed'));
    const gone = await waitForEvent(plants, 8, allIn('failed'));
    const webhookId = failed.deliveries[0]?.id ?? '';

    const listed = await runCli(uri);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(`plant 7  ${webhookId}  ${hooks.receiver.url()}  2 attempts, failed `);
    expect(listed.output).toMatch(/: HTTP 500\n/);
    expect(listed.output).toContain(`plant 8  ${gone.deliveries[0]?.id ?? ''}  ${hooks.receiver.url()}  1 attempt, failed `);
    expect(listed.output).toContain('2 failed deliveries');

    hooks.receiver.respond = () => 200;
    const replayed = await runCli(uri, ['--replay', '--id', webhookId]);
    expect(replayed.code).toBe(0);
    expect(replayed.output).toContain('replayed 1');
    const delivered = await waitForEvent(plants, 7, allIn('delivered'));
    expect(delivered.deliveries[0]).toMatchObject({ id: webhookId, attempts: 1, state: 'delivered' });
    const sent = hooks.receiver.received.filter((request) => request.id === webhookId);
    expect(sent).toHaveLength(3);
    expect(sent[2]?.verifyError).toBeUndefined();
    // The other one was not picked.
    expect((await runCli(uri)).output).toContain('1 failed delivery');
  });

  it('prints its usage with --help, and exits 0 without touching MongoDB', async () => {
    const help = await runCli('', ['--help']);
    expect(help).toStrictEqual({
      code: 0,
      output: expect.stringMatching(
        /^Usage: npm run webhooks:failed -- \[--replay \| --discard\] \[--id msg_…\] \[--url <url>\]\n/,
      ) as unknown,
    });
    expect(help.output).toContain('MONGODB_URI');
    expect(help.output).toMatch(/^ {2}--discard {2}/m);
    expect(help.output).toMatch(/^ {2}--url <url> {2}/m);
    expect(help.output).toMatch(/^Exit codes: 0 /m);
  });

  it('refuses an unknown option, pointing to --help', async () => {
    const child = await runCli('', ['--bogus']);
    expect(child.code).toBe(2);
    expect(child.output).toContain("Unknown option '--bogus'");
    expect(child.output).toContain('--help');
  });

  it('says what it needs without MONGODB_URI in production', async () => {
    const child = await runCli('', [], { NODE_ENV: 'production', API_TOKENS: 'a-token' });
    expect(child.code).toBe(1);
    expect(child.output).toBe('Invalid configuration:\n  MONGODB_URI must be set when NODE_ENV=production\n');
  });

  it('without MONGODB_URI in development, and no embedded MongoDB running, says to start one or set MONGODB_URI', async () => {
    const devDir = await mkdtemp(join(tmpdir(), 'plant-store-dev-'));
    try {
      // What a killed npm start leaves: its MongoDB's address, and a lock naming a pid now given to another process.
      await writeFile(join(devDir, 'mongodb-uri'), 'mongodb://127.0.0.1:9/plantstore\n');
      await mkdir(join(devDir, 'mongod-data'));
      await writeFile(join(devDir, 'mongod-data', 'mongod.lock'), `${process.pid}\n`);
      const child = await runCli('', [], { PLANT_STORE_DEV_DIR: devDir });
      expect(child.code).toBe(2);
      expect(child.output).toBe(
        `MONGODB_URI is not set, and no embedded MongoDB is running on ${devDir} (npm start and npm run dev record its address in ${join(devDir, 'mongodb-uri')}): start one, or set MONGODB_URI\n`,
      );
    } finally {
      await rm(devDir, { recursive: true, force: true });
    }
  });
});

type App = Awaited<ReturnType<typeof hooks.startApp>>['app'];
const patch = (app: App, id: number, body: unknown) =>
  app.inject({ method: 'PATCH', url: `/plants/${id}`, headers: authHeaders(), payload: JSON.stringify(body) });
const remove = (app: App, id: number) => app.inject({ method: 'DELETE', url: `/plants/${id}`, headers: authHeaders() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A mirror as the webhooks guide shows one: the events accepted at `path` (its query aside), applied in the order they
 * came, duplicates skipped; its plants in ascending ids, as the store lists them.
 */
function mirrorAt(received: readonly ReceivedWebhook[], path: string, accepted: WeakSet<ReceivedWebhook>): unknown[] {
  const plants = new Map<string, { id: bigint | number }>();
  const applied = new Set<string>();
  for (const request of received) {
    if (request.path.split('?')[0] !== path || !accepted.has(request) || applied.has(request.id)) continue;
    applied.add(request.id);
    const event = int64Json.parse(request.body) as { type: string; data: { id: bigint | number } };
    if (event.type === 'plant.deleted') plants.delete(event.data.id.toString());
    else plants.set(event.data.id.toString(), event.data);
  }
  return [...plants.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** The plants as the store answers them, as a mirror keeps them. */
async function storeList(app: App): Promise<unknown[]> {
  return int64Json.parse((await app.inject({ method: 'GET', url: '/plants', headers: authHeaders() })).body) as unknown[];
}

describe('npm run webhooks:failed, change events given up on', () => {
  /**
   * An app sending change events to /mirror (always up) and /stale, with one attempt each: /stale takes the plant's
   * first event, then refuses (500) until `recover`.
   */
  async function startMirrors() {
    const accepted = new WeakSet<ReceivedWebhook>();
    let up = false;
    const seen = new Set<string>();
    hooks.receiver.respond = (request) => {
      const stale = request.path.startsWith('/stale');
      const id = /"id":(\d+)/.exec(request.body)?.[1] ?? '';
      const first = stale && !seen.has(id);
      if (stale) seen.add(id);
      const status = !stale || up || first ? 200 : 500;
      if (status === 200) accepted.add(request);
      return status;
    };
    const uri = testMongoUri();
    const started = await hooks.startApp({
      env: {
        MONGODB_URI: uri,
        WEBHOOK_SECRET: SECRET,
        WEBHOOK_CHANGE_URLS: `${hooks.receiver.url('/mirror')},${hooks.receiver.url('/stale')}?key=secret-query`,
        WEBHOOK_MAX_ATTEMPTS: '1',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    return {
      ...started,
      uri,
      recover: () => (up = true),
      mirror: (path: string) => mirrorAt(hooks.receiver.received, path, accepted),
      backlog: () => backlogOf(started.db.collection<EventDocument>('plants')),
    };
  }

  it('a plant created, patched and deleted while a URL refuses: the miss is kept on its tombstone, listed, and --replay sends plant.deleted; the mirror ends equal to the store', async () => {
    const { app, plants, uri, recover, mirror, backlog } = await startMirrors();
    await postPlant(app, { id: 21, name: 'Fern' });
    await postPlant(app, { id: 22, name: 'Moss' });
    await hooks.receiver.waitFor((received) => received.filter((request) => request.path.startsWith('/stale')).length === 2);
    expect((await patch(app, 21, { name: 'Tree fern' })).statusCode).toBe(200);
    expect((await remove(app, 21)).statusCode).toBe(204);

    // Both given up on /stale; the tombstone stays for the miss, with no queue left, and no read of the store sees it.
    const tombstone = (await waitForDocument(plants, 21, missedAndDone('plant.deleted'))) as MissedDocument;
    const refused = hooks.receiver.received.filter(
      (request) => request.path.startsWith('/stale') && request.body.includes('"plant.deleted"'),
    );
    expect(refused).toHaveLength(1);
    expect(tombstone).toMatchObject({ tombstone: true });
    expect(tombstone.missedChanges).toStrictEqual([
      {
        url: `${hooks.receiver.url('/stale')}?key=secret-query`,
        type: 'plant.deleted',
        webhookId: refused[0]?.id,
        attempts: 1,
        failedAt: expect.any(Date) as unknown,
        lastError: 'HTTP 500',
      },
    ]);
    expect((await app.inject({ method: 'GET', url: '/plants/21', headers: authHeaders() })).statusCode).toBe(404);
    expect(await storeList(app)).toStrictEqual([{ id: 22, name: 'Moss' }]);
    // /stale still holds the deleted plant: it missed the change and the delete.
    expect(mirror('/mirror')).toStrictEqual(await storeList(app));
    expect(mirror('/stale')).toStrictEqual([
      { id: 21, name: 'Fern' },
      { id: 22, name: 'Moss' },
    ]);
    expect(await backlog()).toMatchObject({ failed: 1 });

    const listed = await runCli(uri);
    expect(listed.code).toBe(0);
    const webhookId = refused[0]?.id ?? '';
    expect(listed.output).toMatch(
      new RegExp(
        `^change plant 21  ${webhookId}  ${hooks.receiver.url('/stale')}  plant\\.deleted, 1 attempt, failed \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: HTTP 500$`,
        'm',
      ),
    );
    expect(listed.output).not.toContain('secret-query');
    expect(listed.output).toContain('0 failed deliveries\n');
    expect(listed.output).toContain('1 missed change\n');
    // --id finds it among both kinds.
    expect((await runCli(uri, ['--id', webhookId])).output).toContain('1 missed change\n');
    // Another id finds nothing: the operator named one that is not there, so it says so and exits 1.
    const none = await runCli(uri, ['--id', 'msg_other']);
    expect(none.output).toContain('0 missed changes\n');
    expect(none.output).toContain('no failed delivery or missed change has the webhook-id msg_other\n');
    expect(none.code).toBe(1);

    recover();
    const before = Date.now();
    const replayed = await runCli(uri, ['--replay']);
    expect(replayed.code).toBe(0);
    expect(replayed.output).toContain('resynced 1\n');
    await hooks.receiver.waitFor((received) => received.filter((request) => request.path.startsWith('/stale')).length === 5);
    const resync = hooks.receiver.received.filter((request) => request.path.startsWith('/stale')).at(-1);
    expect(resync?.verifyError).toBeUndefined();
    expect(resync?.id).not.toBe(webhookId);
    const body = JSON.parse(resync?.body ?? '') as { type: string; timestamp: string; data: unknown };
    expect(body).toStrictEqual({ type: 'plant.deleted', timestamp: expect.any(String) as unknown, data: { id: 21 } });
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(before);
    // To that URL only; and every mirror now equals the store.
    expect(hooks.receiver.received.filter((request) => request.path === '/mirror')).toHaveLength(4);
    expect(mirror('/stale')).toStrictEqual(await storeList(app));
    expect(mirror('/mirror')).toStrictEqual(await storeList(app));
    // Its events done and nothing missed, the tombstone goes; nothing is listed.
    await waitForDocument(plants, 21, (document) => document === null);
    expect((await runCli(uri)).output).toContain('0 missed changes\n');
    expect(await backlog()).toMatchObject({ failed: 0 });
  });

  it('a plant created again over its tombstone keeps the miss; --replay sends plant.updated with the plant as stored now', async () => {
    const { app, plants, uri, recover, mirror } = await startMirrors();
    await postPlant(app, { id: 23, name: 'Ivy', tag: 'climber' });
    await hooks.receiver.waitFor((received) => received.some((request) => request.path.startsWith('/stale')));
    await patch(app, 23, { tag: null });
    await waitForDocument(plants, 23, missedAndDone('plant.updated'));
    await remove(app, 23);
    const tombstone = (await waitForDocument(plants, 23, missedAndDone('plant.deleted'))) as MissedDocument;
    // One miss per URL: the delete's replaced the update's.
    expect(tombstone.missedChanges?.map((missed) => missed.type)).toStrictEqual(['plant.deleted']);

    // Created again while /stale still refuses: the live plant keeps the miss of its deleted self until its own
    // plant.created is given up on too, which then stands for both.
    expect((await postPlant(app, { id: 23, name: 'Ivy', tag: 'evergreen' })).statusCode).toBe(200);
    const created = (await plants.findOne({ _id: Long.fromNumber(23) })) as MissedDocument | null;
    expect(created?.tombstone).toBeUndefined();
    expect(created?.missedChanges?.map((missed) => missed.webhookId)).toStrictEqual(
      tombstone.missedChanges?.map((missed) => missed.webhookId),
    );
    await waitForDocument(plants, 23, missedAndDone('plant.created'));
    expect((await runCli(uri)).output).toMatch(/^change plant 23 .* plant\.created, 1 attempt, failed /m);
    recover();

    const received = hooks.receiver.received.length;
    expect((await runCli(uri, ['--replay'])).output).toContain('resynced 1\n');
    await hooks.receiver.waitFor((all) => all.length === received + 1);
    const resync = hooks.receiver.received.at(-1);
    expect(resync?.path).toBe('/stale?key=secret-query');
    expect(JSON.parse(resync?.body ?? '')).toMatchObject({ type: 'plant.updated', data: { id: 23, name: 'Ivy', tag: 'evergreen' } });
    expect(await storeList(app)).toStrictEqual([{ id: 23, name: 'Ivy', tag: 'evergreen' }]);
    expect(mirror('/stale')).toStrictEqual(await storeList(app));
    // The plant stays, its queue gone once delivered, its miss taken.
    const after = (await waitForDocument(plants, 23, (document) => document?.changes === undefined)) as MissedDocument;
    expect(after.missedChanges).toBeUndefined();
  });

  it('a later event delivered to the URL clears its miss: the mirror has the whole plant again, and a tombstone goes', async () => {
    const { app, plants, uri, recover, mirror, backlog } = await startMirrors();
    for (const id of [25, 26]) {
      await postPlant(app, { id, name: 'Mint' });
      await hooks.receiver.waitFor((received) =>
        received.some((request) => request.path.startsWith('/stale') && request.body.includes(`"id":${id}`)),
      );
      expect((await patch(app, id, { tag: 'herb' })).statusCode).toBe(200);
      await waitForDocument(plants, id, missedAndDone('plant.updated'));
    }
    expect(await backlog()).toMatchObject({ failed: 2 });

    recover();
    expect((await patch(app, 25, { name: 'Spearmint' })).statusCode).toBe(200);
    expect((await remove(app, 26)).statusCode).toBe(204);
    await waitForDocument(plants, 25, (document) => document !== null && document.changes === undefined);
    expect(((await plants.findOne({ _id: Long.fromNumber(25) })) as MissedDocument | null)?.missedChanges).toBeUndefined();
    await waitForDocument(plants, 26, (document) => document === null);
    expect(mirror('/stale')).toStrictEqual(await storeList(app));
    expect((await runCli(uri)).output).toContain('0 missed changes\n');
    expect(await backlog()).toMatchObject({ failed: 0 });
  });

  it('a resync racing a change: appended after the change, with the plant as the change left it; nothing lost or sent twice', async () => {
    const { app, db, plants, recover, mirror } = await startMirrors();
    for (const id of [24, 27]) {
      await postPlant(app, { id, name: 'Sage' });
      await hooks.receiver.waitFor((received) =>
        received.some((request) => request.path.startsWith('/stale') && request.body.includes(`"id":${id}`)),
      );
      await patch(app, id, { name: 'Salvia' });
      await waitForDocument(plants, id, missedAndDone('plant.updated'));
    }
    recover();
    const collection = db.collection<MissedDocument>('plants', { promoteLongs: false });
    const [first, second] = await listMissed(collection);
    if (!first || !second) throw new Error('two misses were to be listed');
    const racedBy = (between: () => Promise<void>) => raced(collection, between);

    // Plant 24 changes between the resync's read and its write, made by another instance's store (whose worker has
    // not looked yet, so no claim comes in between): the resync reads again and goes after the change.
    const urls = [hooks.receiver.url('/mirror'), `${hooks.receiver.url('/stale')}?key=secret-query`];
    const another = new MongoPlantStore(db, { w: 1 }, { urls: [], changeUrls: urls, changeQueueLimit: 1000, recorded: () => undefined });
    const changed = racedBy(async () => {
      await another.update(24, { name: 'Salvia officinalis' });
    });
    expect(await resyncMissed(changed, first, 1000)).toStrictEqual({ kind: 'resynced' });
    // Plant 27's miss is resynced by another run in between: this one finds it taken, and adds nothing.
    let other: unknown;
    const taken = racedBy(async () => {
      other = await resyncMissed(collection, second, 1000);
    });
    expect(await resyncMissed(taken, second, 1000)).toStrictEqual({ kind: 'gone' });
    expect(other).toStrictEqual({ kind: 'resynced' });

    const stale = (id: number) =>
      hooks.receiver.received
        .filter((request) => request.path.startsWith('/stale') && request.body.includes(`"id":${id}`))
        .map((request) => ({ id: request.id, ...(JSON.parse(request.body) as { type: string; data: { name: string } }) }));
    await hooks.receiver.waitFor(() => stale(24).length === 4 && stale(27).length === 3);
    await sleep(300);
    expect(stale(24)).toMatchObject([
      { type: 'plant.created', data: { name: 'Sage' } },
      { type: 'plant.updated', data: { name: 'Salvia' } },
      { type: 'plant.updated', data: { name: 'Salvia officinalis' } },
      { type: 'plant.updated', data: { name: 'Salvia officinalis' } },
    ]);
    expect(new Set(stale(24).map((request) => request.id)).size).toBe(4);
    expect(stale(27).map(({ type, data }) => `${type} ${data.name}`)).toStrictEqual([
      'plant.created Sage',
      'plant.updated Salvia',
      'plant.updated Salvia',
    ]);
    expect(mirror('/stale')).toStrictEqual(await storeList(app));
    expect(mirror('/mirror')).toStrictEqual(await storeList(app));
  });

  it('a plant whose change queue is full is not resynced, says why, and stays listed', async () => {
    const { app, plants, uri } = await startMirrors();
    await postPlant(app, { id: 25, name: 'Rue' });
    await hooks.receiver.waitFor((received) => received.some((request) => request.path.startsWith('/stale')));
    await patch(app, 25, { name: 'Herb of grace' });
    await waitForDocument(plants, 25, missedAndDone('plant.updated'));
    // Two events waiting, out of the worker's reach for now: a queue limit of 2 is full.
    const waiting = [1, 2].map(() => newChangeEvent('plant.updated', new Date(), ['http://127.0.0.1:9/x'], { name: 'Herb of grace' }));
    await plants.updateOne(
      { _id: Long.fromNumber(25) },
      { $set: { changes: { dueAt: new Date(Date.now() + 3_600_000), claims: 0, recorded: 2, events: waiting } } },
    );
    const replayed = await runCli(uri, ['--replay'], { WEBHOOK_CHANGE_QUEUE_LIMIT: '2' });
    // Left undone: exit 1, so a script running it knows to run it again.
    expect(replayed.code).toBe(1);
    expect(replayed.output).toMatch(/^not resynced: change plant 25 .* plant\.updated, 1 attempt: its change queue is full/m);
    expect(replayed.output).toContain('resynced 0, full 1\n');
    expect((await runCli(uri)).output).toContain('1 missed change\n');
    expect((await plants.findOne({ _id: Long.fromNumber(25) }))?.changes?.events).toHaveLength(2);
  });

  it("a delivery given up on whose release never came (the instance died) is kept by the next claim's release", async () => {
    const { app, plants } = await startMirrors();
    const event = newChangeEvent('plant.updated', new Date(), [hooks.receiver.url('/stale')], { name: 'Yew' });
    const given = { ...event.deliveries[0], state: 'failed', attempts: 3, failedAt: new Date(), lastError: 'HTTP 503' };
    // As an instance that wrote the outcome and died before releasing: a lease long run out, the event done.
    await plants.insertOne({
      _id: Long.fromNumber(26),
      name: 'Yew',
      createdAt: new Date(),
      revision: 1,
      changes: {
        dueAt: new Date(0),
        lease: { owner: 'gone', token: 'lapsed' },
        claims: 1,
        recorded: 1,
        events: [{ ...event, deliveries: [given] }],
      },
    } as PlantDocument);
    await app.ready();
    const document = (await waitForDocument(plants, 26, missedAndDone('plant.updated'))) as MissedDocument;
    expect(document.missedChanges).toStrictEqual([
      { url: given.url, type: 'plant.updated', webhookId: given.id, attempts: 3, failedAt: given.failedAt, lastError: 'HTTP 503' },
    ]);
  });
});

describe('the misses a plant keeps', () => {
  const failedAt = new Date(0);
  const given = (url: string, id: string) => {
    const event = newChangeEvent('plant.updated', failedAt, [url], { name: 'x' });
    return {
      ...event,
      deliveries: event.deliveries.map((delivery) => ({ ...delivery, id, state: 'failed' as const, failedAt, attempts: 1 })),
    };
  };
  const entry = (url: string, webhookId: string): MissedChange => ({ url, type: 'plant.updated', webhookId, attempts: 1, failedAt });

  it('a delivery to a URL after its miss clears it; one given up on after a delivery is kept', () => {
    const delivered = (url: string, id: string) => {
      const event = given(url, id);
      return { ...event, deliveries: event.deliveries.map((delivery) => ({ ...delivery, state: 'delivered' as const })) };
    };
    expect(missedAfter([entry('a', 'msg_1'), entry('b', 'msg_2')], [delivered('a', 'msg_3')])).toStrictEqual([entry('b', 'msg_2')]);
    expect(missedAfter([], [delivered('a', 'msg_4'), given('a', 'msg_5')])).toStrictEqual([entry('a', 'msg_5')]);
  });

  it('one per URL, the latest; the oldest go beyond a hundred URLs', () => {
    expect(missedAfter([entry('a', 'msg_1'), entry('b', 'msg_2')], [given('a', 'msg_3')])).toStrictEqual([
      entry('b', 'msg_2'),
      entry('a', 'msg_3'),
    ]);
    const many = Array.from({ length: 100 }, (_, n) => entry(`u${n}`, `msg_${n}`));
    const kept = missedAfter(many, [given('new', 'msg_new')]);
    expect(kept).toHaveLength(100);
    expect(kept[0]?.url).toBe('u1');
    expect(kept.at(-1)?.url).toBe('new');
  });
});
