// The new-plant webhook from the built service process (as `npm start` runs it): never lost across
// a SIGKILL, shared by two processes on one MongoDB, and refused at start-up when misconfigured.
import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { driveLoad, makePlants } from '../helpers/load/drive-load.js';
import { postJson } from '../helpers/http-post.js';
import { freePort, spawnService, startService } from '@plant-store/service-launcher';
import { newWebhookSecret, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '@plant-store/service-launcher';
import { testMongoUri } from '../helpers/app.js';
import { useFreshDatabases } from '../helpers/fresh-databases.js';
import { allIn, waitForEvent } from '../helpers/webhooks.js';

const TOKEN = 'webhooks-process-token';
const SECRET = newWebhookSecret();

const { fresh: freshDatabase } = useFreshDatabases();

function serviceEnv(uri: string, urls: string[], env: Record<string, string> = {}): Record<string, string> {
  return {
    MONGODB_URI: uri,
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'warn',
    WEBHOOK_URLS: urls.join(','),
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_RETRY_BASE_MS: '50',
    WEBHOOK_TIMEOUT_MS: '1000',
    MONGODB_TIMEOUT_MS: '1000',
    ...env,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SIGKILL', () => {
  it('right after a create answered 200 while the receiver is down: the restarted service delivers the event once the receiver is up', async () => {
    const database = freshDatabase();
    const receiverPort = await freePort();
    const env = serviceEnv(database.uri, [`http://127.0.0.1:${receiverPort}/hook`], { WEBHOOK_MAX_ATTEMPTS: '30' });
    let service = await startService(env);
    let receiver: WebhookReceiver | undefined;
    try {
      const created = await postJson(`${service.url}/plants`, { id: 1, name: 'Fern', tag: 'shade' }, TOKEN);
      expect(created.status).toBe(200);
      expect(await service.stop('SIGKILL')).toBeNull();
      expect((await database.plants.findOne({ _id: Long.fromNumber(1) }))?.webhook?.deliveries[0]?.state).toBe('pending');

      service = await startService(env);
      // The restarted service tries while the receiver is still down (once the killed one's lease, if it held one, ran out)...
      await waitForEvent(database.plants, 1, (event) => event.deliveries[0]?.lastError?.startsWith('ECONNREFUSED') === true, 20_000);
      receiver = await startWebhookReceiver({ secret: SECRET, port: receiverPort });
      // ...and delivers once it is up.
      await receiver.waitFor((received) => received.length >= 1, 20_000);
      const event = await waitForEvent(database.plants, 1, allIn('delivered'));
      const { received } = receiver;
      expect(received.map((request) => request.body)).toStrictEqual(['{"id":1,"name":"Fern","tag":"shade"}']);
      expect(received[0]?.verifyError).toBeUndefined();
      expect(received[0]?.id).toBe(event.deliveries[0]?.id);
      expect(event.deliveries[0]?.attempts).toBeGreaterThan(1);
      expect(await service.stop('SIGTERM')).toBe(0);
    } finally {
      await service.stop('SIGKILL');
      await receiver?.close();
      await database.drop();
    }
  }, 60_000);

  it('during an attempt: the restarted service repeats that attempt, with the same webhook-id, once the lease has run out', async () => {
    const database = freshDatabase();
    const receiver = await startWebhookReceiver({ secret: SECRET });
    receiver.respond = () => 'hang';
    const env = serviceEnv(database.uri, [receiver.url()]);
    let service = await startService(env);
    try {
      expect((await postJson(`${service.url}/plants`, { id: 2, name: 'Ivy' }, TOKEN)).status).toBe(200);
      await receiver.waitFor((received) => received.length === 1);
      expect(await service.stop('SIGKILL')).toBeNull();
      const killedAt = Date.now();
      receiver.respond = () => 200;

      service = await startService(env);
      const event = await waitForEvent(database.plants, 2, allIn('delivered'), 20_000);
      // The lease: WEBHOOK_TIMEOUT_MS + 2 × MONGODB_TIMEOUT_MS + 1 s = 4 s from the claim.
      expect(Date.now() - killedAt).toBeGreaterThan(2_000);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.id).toBe(receiver.received[0]?.id);
      // The killed attempt was never recorded: one attempt counted, on the second claim.
      expect(event).toMatchObject({ claims: 2, deliveries: [{ attempts: 1, state: 'delivered' }] });
      expect(await service.stop('SIGTERM')).toBe(0);
    } finally {
      await service.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
  }, 60_000);
});

describe('SIGTERM', () => {
  it('during an attempt the receiver does not answer: the process exits 0 within seconds, the delivery released for the next instance', async () => {
    const database = freshDatabase();
    const receiver = await startWebhookReceiver({ secret: SECRET });
    receiver.respond = () => 'hang';
    const service = await startService(serviceEnv(database.uri, [receiver.url()], { WEBHOOK_TIMEOUT_MS: '30000' }));
    try {
      expect((await postJson(`${service.url}/plants`, { id: 3, name: 'Oak' }, TOKEN)).status).toBe(200);
      await receiver.waitFor((received) => received.length === 1);
      const signalAt = performance.now();
      expect(await service.stop('SIGTERM')).toBe(0);
      expect(performance.now() - signalAt).toBeLessThan(5_000);
      const event = (await database.plants.findOne({ _id: Long.fromNumber(3) }))?.webhook;
      expect(event).toMatchObject({ claims: 1, deliveries: [{ state: 'pending', attempts: 0 }] });
      expect(event?.lease).toBeUndefined();
      expect(event?.dueAt?.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await service.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
  });
});

describe('two service processes on one MongoDB', () => {
  it('1,000 creates: every event reaches each of two URLs exactly once, and both processes deliver', async () => {
    const database = freshDatabase();
    const receiver = await startWebhookReceiver({ secret: SECRET });
    // MONGODB_TIMEOUT_MS bounds each MongoDB operation as a whole, waiting for a connection included:
    // the default's, not the second of the lease tests, for 32 clients and 2 workers on one shared MongoDB.
    // Exactly once holds for a receiver that answers within WEBHOOK_TIMEOUT_MS (an attempt timed out is
    // sent again, and the receiver may have had it): the default's, for a receiver in this busy process.
    const env = serviceEnv(database.uri, [receiver.url('/a'), receiver.url('/b')], {
      LOG_LEVEL: 'debug',
      MONGODB_TIMEOUT_MS: '3000',
      WEBHOOK_TIMEOUT_MS: '5000',
    });
    const services = await Promise.all([startService(env), startService(env)]);
    try {
      const plants = makePlants(1_000, 1);
      const halves = [plants.filter((plant) => plant.id % 2 === 0), plants.filter((plant) => plant.id % 2 === 1)];
      const drives = await Promise.all(
        services.map((service, index) => driveLoad({ url: service.url, token: TOKEN, plants: halves[index] ?? [], concurrency: 16 })),
      );
      expect(drives.map((drive) => drive.ok)).toStrictEqual([500, 500]);

      await receiver.waitFor((received) => received.length >= 2_000, 60_000);
      // Time for a duplicate to arrive, if there were one.
      await sleep(1_500);
      const expected = plants.map((plant) => JSON.stringify(plant)).sort();
      // On a failure, what the services warned of says why.
      const warnings = services
        .flatMap((service) =>
          service
            .output()
            .split('\n')
            .filter((line) => /"level":(40|50)/.test(line)),
        )
        .slice(0, 20)
        .join('\n');
      for (const path of ['/a', '/b']) {
        const bodies = receiver.received.filter((request) => request.path === path).map((request: ReceivedWebhook) => request.body);
        expect(bodies, warnings).toHaveLength(1_000);
        expect(bodies.sort()).toStrictEqual(expected);
      }
      expect(receiver.received.filter((request) => request.verifyError !== undefined)).toStrictEqual([]);
      expect(new Set(receiver.received.map((request) => request.id)).size).toBe(2_000);
      // Each event was claimed once, and is done.
      const events = await database.plants.find({}, { projection: { webhook: 1 } }).toArray();
      expect(events.filter((document) => document.webhook?.claims !== 1 || document.webhook.dueAt !== undefined)).toStrictEqual([]);

      for (const service of services) expect(await service.stop('SIGTERM')).toBe(0);
      const delivered = services.map((service) => service.output().match(/"msg":"webhook delivered"/g)?.length ?? 0);
      expect(delivered.reduce((sum, count) => sum + count, 0)).toBe(2_000);
      expect(Math.min(...delivered)).toBeGreaterThan(0);
      console.log(`two processes: deliveries by each ${JSON.stringify(delivered)}`);
    } finally {
      await Promise.all(services.map((service) => service.stop('SIGKILL')));
      await receiver.close();
      await database.drop();
    }
  }, 120_000);
});

describe('start-up', () => {
  it.each([
    ['a malformed WEBHOOK_SECRET', { WEBHOOK_SECRET: 'whsec_c2hvcnQ=' }, /WEBHOOK_SECRET: must be whsec_ followed by the base64/],
    ['WEBHOOK_URLS without WEBHOOK_SECRET', { WEBHOOK_SECRET: '' }, /WEBHOOK_SECRET must be set when WEBHOOK_URLS is set/],
  ])('is refused with %s, with a message naming it', async (_case, overrides, message) => {
    const service = spawnService({ ...serviceEnv(testMongoUri(), ['http://127.0.0.1:9/hook']), PORT: '0', ...overrides });
    expect(await service.exited()).toBe(1);
    expect(service.output()).toMatch(message);
    expect(service.output()).not.toContain('c2hvcnQ=');
    expect(service.output()).not.toContain('listening');
  });
});
