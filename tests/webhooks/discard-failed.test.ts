// A receiver retired for good: `npm run webhooks:failed -- --discard` (the built CLI) drops what was given up on for
// it, so nothing is sent to it again, the failed-events gauge returns to 0, and a deleted plant's tombstone kept only
// for its miss goes. `--replay --url` and `--discard --url` touch only that URL's.
import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '@plant-store/service-launcher';
import { authHeaders, postPlant, testMongoUri } from '../helpers/app.js';
import { allIn, backlogOf, useWebhookReceiver, waitForEvent } from '../helpers/webhooks.js';
import type { EventDocument } from '../../server/webhooks/delivery-worker.js';
import { discardMissed } from '../../server/webhooks/discard-missed.js';
import { listMissed, type MissedDocument } from '../../server/webhooks/missed-changes.js';
import { missedAndDone, racedBy, runCli, waitForDocument } from '../helpers/failed-events.js';

const SECRET = newWebhookSecret();
const hooks = useWebhookReceiver(SECRET);
const patch = (app: App, id: number, body: unknown) =>
  app.inject({ method: 'PATCH', url: `/plants/${id}`, headers: authHeaders(), payload: JSON.stringify(body) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const missesOf = (document: unknown) => (document as MissedDocument | null)?.missedChanges ?? [];
type App = Awaited<ReturnType<typeof hooks.startApp>>['app'];

/**
 * An app sending new-plant events to /gone, and change events to /mirror and /gone?key=…, one attempt each: /gone
 * refuses everything (the receiver was retired), /mirror takes everything.
 */
async function startWithRetiredReceiver() {
  hooks.receiver.respond = (request) => (request.path.startsWith('/gone') ? 500 : 200);
  const uri = testMongoUri();
  const gone = hooks.receiver.url('/gone');
  const started = await hooks.startApp({
    env: {
      MONGODB_URI: uri,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_URLS: gone,
      WEBHOOK_CHANGE_URLS: `${hooks.receiver.url('/mirror')},${gone}?key=secret-query`,
      WEBHOOK_MAX_ATTEMPTS: '1',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  const backlog = () => backlogOf(started.db.collection<EventDocument>('plants'));
  return { ...started, uri, gone, backlog };
}

describe('npm run webhooks:failed -- --discard', () => {
  it('--id drops one; --url drops the rest of a retired URL: nothing is replayed to it, the gauge is 0, the tombstone goes', async () => {
    const { app, plants, uri, gone, backlog } = await startWithRetiredReceiver();
    await postPlant(app, { id: 31, name: 'Fern' });
    await postPlant(app, { id: 32, name: 'Moss' });
    await waitForEvent(plants, 31, allIn('failed'));
    await waitForEvent(plants, 32, allIn('failed'));
    const fern = (await waitForDocument(plants, 31, missedAndDone('plant.created'))) as MissedDocument | null;
    await waitForDocument(plants, 32, missedAndDone('plant.created'));
    expect((await app.inject({ method: 'DELETE', url: '/plants/32', headers: authHeaders() })).statusCode).toBe(204);
    await waitForDocument(plants, 32, missedAndDone('plant.deleted'));
    // Fern's new-plant delivery failed (Moss's went with its delete); both plants keep a miss.
    expect(await backlog()).toMatchObject({ failed: 3 });

    const one = await runCli(uri, ['--discard', '--id', fern?.missedChanges?.[0]?.webhookId ?? '']);
    expect(one.output).toContain('discarded 1\n');
    expect(one.code).toBe(0);
    expect(await backlog()).toMatchObject({ failed: 2 });
    const left = await runCli(uri);
    expect(left.output).toContain('1 failed delivery\n');
    expect(left.output).toMatch(/^change plant 32 .* plant\.deleted, 1 attempt, failed /m);
    expect(left.output).toContain('1 missed change\n');

    // By origin and path as listed: the query the stored URL has is no part of what an operator sees.
    const rest = await runCli(uri, ['--discard', '--url', gone]);
    expect(rest.output).toContain('discarded 2\n');
    expect(rest.code).toBe(0);
    expect(await backlog()).toMatchObject({ failed: 0 });
    const none = await runCli(uri);
    expect(none.output).toContain('0 failed deliveries\n');
    expect(none.output).toContain('0 missed changes\n');
    expect(none.code).toBe(0);
    // The deleted plant's tombstone was kept only for its miss: it goes. The plant that exists stays, as it was.
    expect(await plants.findOne({ _id: Long.fromNumber(32) })).toBeNull();
    const kept = await plants.findOne({ _id: Long.fromNumber(31) });
    expect(kept).toMatchObject({ name: 'Fern' });
    expect((kept as MissedDocument | null)?.missedChanges).toBeUndefined();
    expect(kept?.webhook?.deliveries[0]).toMatchObject({ state: 'discarded', attempts: 1, lastError: 'HTTP 500' });
    expect((await app.inject({ method: 'GET', url: '/plants/31', headers: authHeaders() })).statusCode).toBe(200);

    // Nothing left to replay: the retired URL gets nothing more.
    const sentToGone = () => hooks.receiver.received.filter((request) => request.path.startsWith('/gone')).length;
    const before = sentToGone();
    const replayed = await runCli(uri, ['--replay']);
    expect(replayed.code).toBe(0);
    await sleep(300);
    expect(sentToGone()).toBe(before);
    // A second discard finds nothing, and with a filter says so.
    expect((await runCli(uri, ['--discard', '--url', gone])).code).toBe(1);
  });

  it('--replay --url replays only that URL, leaving the other listed', async () => {
    hooks.receiver.respond = () => 500;
    const uri = testMongoUri();
    const [first, second] = [hooks.receiver.url('/first'), hooks.receiver.url('/second')];
    const { app, plants } = await hooks.startApp({
      env: {
        MONGODB_URI: uri,
        WEBHOOK_SECRET: SECRET,
        WEBHOOK_URLS: `${first},${second}`,
        WEBHOOK_MAX_ATTEMPTS: '1',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    await postPlant(app, { id: 41, name: 'Ivy' });
    await waitForEvent(plants, 41, allIn('failed'));
    hooks.receiver.respond = () => 200;
    const replayed = await runCli(uri, ['--replay', '--url', second]);
    expect(replayed.output).toContain('1 failed delivery\n');
    expect(replayed.output).toContain('replayed 1\n');
    expect(replayed.code).toBe(0);
    const event = await waitForEvent(plants, 41, (record) => record.deliveries[1]?.state === 'delivered');
    expect(event.deliveries.map((delivery) => delivery.state)).toStrictEqual(['failed', 'delivered']);
    expect((await runCli(uri)).output).toMatch(new RegExp(`^plant 41  msg_\\S+  ${first}  1 attempt, failed `, 'm'));
  });

  it('--replay and --discard leaving some undone say why and exit 1', async () => {
    const { app, plants, uri, gone } = await startWithRetiredReceiver();
    await postPlant(app, { id: 33, name: 'Rue' });
    await waitForEvent(plants, 33, allIn('failed'));
    await waitForDocument(plants, 33, missedAndDone('plant.created'));
    // An instance holds the new-plant event's claim: a replay skips it.
    await plants.updateOne({ _id: Long.fromNumber(33) }, { $set: { 'webhook.lease': { owner: 'other', token: 'held' } } });
    const replayed = await runCli(uri, ['--replay', '--url', gone]);
    expect(replayed.output).toContain('replayed 0; 1 skipped, their event being worked on by an instance: run again\n');
    expect(replayed.code).toBe(1);
  });
});

describe('discarding a miss, racing the service', () => {
  it('a create over the tombstone between its read and its write: the plant is kept, with its new event, and the miss goes', async () => {
    const { app, plants, db, gone } = await startWithRetiredReceiver();
    await postPlant(app, { id: 34, name: 'Sage' });
    await waitForDocument(plants, 34, missedAndDone('plant.created'));
    await app.inject({ method: 'DELETE', url: '/plants/34', headers: authHeaders() });
    await waitForDocument(plants, 34, missedAndDone('plant.deleted'));
    const collection = db.collection<MissedDocument>('plants', { promoteLongs: false });
    const [missed] = await listMissed(collection, { url: gone });
    if (!missed) throw new Error('a miss was to be listed');
    let raced = false;
    const racing = racedBy(collection, async () => {
      raced = true;
      hooks.receiver.respond = () => 200;
      expect((await postPlant(app, { id: 34, name: 'Sage' })).statusCode).toBe(200);
    });

    expect(await discardMissed(racing, [missed])).toStrictEqual({ discarded: 1, busy: 0, gone: 0 });
    expect(raced).toBe(true);
    const plant = (await waitForDocument(
      plants,
      34,
      (document) => document !== null && document.changes === undefined,
    )) as MissedDocument | null;
    expect(plant).not.toHaveProperty('tombstone');
    expect(plant?.missedChanges ?? []).toStrictEqual([]);
    expect(hooks.receiver.received.at(-1)).toMatchObject({ path: '/gone?key=secret-query' });
    expect((await app.inject({ method: 'GET', url: '/plants/34', headers: authHeaders() })).statusCode).toBe(200);
    // The create's plant.created reached /mirror after its plant.deleted.
    const mirror = hooks.receiver.received
      .filter((request) => request.path === '/mirror')
      .map((request) => JSON.parse(request.body) as { type: string });
    expect(mirror.map((event) => event.type)).toStrictEqual(['plant.created', 'plant.deleted', 'plant.created']);
  });

  it('while an instance holds the queue and gives up on another URL: its release, written from what it read before, does not bring the miss back', async () => {
    const { app, plants, uri, gone } = await startWithRetiredReceiver();
    await postPlant(app, { id: 35, name: 'Yew' });
    await waitForDocument(plants, 35, missedAndDone('plant.created'));
    // The next event: /mirror fails slowly, holding the claim while the miss of /gone is discarded.
    hooks.receiver.respond = (request) => (request.path === '/mirror' ? { status: 500, afterMs: 1_500 } : 200);
    const mirrored = hooks.receiver.received.filter((request) => request.path === '/mirror').length;
    expect((await patch(app, 35, { name: 'Taxus' })).statusCode).toBe(200);
    await hooks.receiver.waitFor((received) => received.filter((request) => request.path === '/mirror').length > mirrored);
    expect((await plants.findOne({ _id: Long.fromNumber(35) }))?.changes?.lease).toBeDefined();

    // The new-plant delivery to /gone, and the miss.
    const discarded = await runCli(uri, ['--discard', '--url', gone]);
    expect(discarded.output).toContain('discarded 2\n');
    const done = (await waitForDocument(
      plants,
      35,
      (document) => document?.changes === undefined && missesOf(document).some((missed) => missed.type === 'plant.updated'),
    )) as MissedDocument | null;
    expect(done?.missedChanges?.map(({ url, type }) => `${type} ${url}`)).toStrictEqual([`plant.updated ${hooks.receiver.url('/mirror')}`]);
  });
});
