// Change events from the built service as a process (as `npm start` runs it), over real HTTP, to a Standard
// Webhooks receiver that verifies each and applies it to a map: the map ends equal to the store after hundreds of
// random changes from several clients on two processes sharing one MongoDB, though every first attempt fails; and
// an answered change's event survives a SIGKILL.
import { describe, expect, it } from 'vitest';
import {
  newWebhookSecret,
  startService,
  startWebhookReceiver,
  type ReceivedWebhook,
  type ServiceProcess,
} from '@plant-store/service-launcher';
import { useFreshDatabases } from '../helpers/fresh-databases.js';

const TOKEN = 'change-events-process-token';
const SECRET = newWebhookSecret();

interface Plant {
  id: number;
  name: string;
  tag?: string;
}
interface ChangeEvent {
  type: 'plant.created' | 'plant.updated' | 'plant.deleted';
  timestamp: string;
  data: Plant | { id: number };
}

const { fresh: freshDatabase } = useFreshDatabases();

function serviceEnv(uri: string, url: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    MONGODB_URI: uri,
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'error',
    WEBHOOK_CHANGE_URLS: url,
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_RETRY_BASE_MS: '20',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_MAX_ATTEMPTS: '30',
    ...env,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, etag: response.headers.get('etag') ?? undefined, body: await response.text() };
}

/** Every plant, as a client pages through `GET /plants`. */
async function listAll(url: string): Promise<Plant[]> {
  const plants: Plant[] = [];
  let next: string | undefined = '/plants?limit=7';
  while (next !== undefined) {
    const response = await fetch(`${url}${next}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    plants.push(...((await response.json()) as Plant[]));
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return plants;
}

/**
 * A mirror: applies each event it accepts to a map, and notes any event that could not follow the ones before it
 * (an update or delete of a plant it does not hold, a create of one it does). Every first attempt of an event fails.
 */
function mirror(receiverAccepts: (attempt: number) => boolean) {
  const plants = new Map<number, Plant>();
  const accepted: ReceivedWebhook[] = [];
  const outOfOrder: string[] = [];
  const respond = (request: ReceivedWebhook, attempt: number) => {
    if (request.verifyError !== undefined || !receiverAccepts(attempt)) return 503;
    accepted.push(request);
    const event = request.verified as ChangeEvent;
    const { id } = event.data;
    if ((event.type === 'plant.created') === plants.has(id)) outOfOrder.push(`${event.type} ${id}`);
    if (event.type === 'plant.deleted') plants.delete(id);
    else plants.set(id, event.data as Plant);
    return 200;
  };
  return { plants, accepted, outOfOrder, respond };
}

const byId = (a: Plant, b: Plant) => a.id - b.id;

describe('change events from two service processes on one MongoDB', () => {
  it('hundreds of random creates, patches and deletes from several clients: the mirror ends equal to the store, in order', async () => {
    const database = freshDatabase();
    const receiver = await startWebhookReceiver({ secret: SECRET });
    const view = mirror((attempt) => attempt > 1);
    receiver.respond = view.respond;
    const env = serviceEnv(database.uri, receiver.url('/changes'), { LOG_LEVEL: 'debug' });
    const services: ServiceProcess[] = await Promise.all([startService(env), startService(env)]);
    const started = performance.now();
    try {
      const statuses = new Map<string, number>();
      const clients = Array.from({ length: 8 }, async (_, clientIndex) => {
        const service = services[clientIndex % services.length] as ServiceProcess;
        let seed = clientIndex + 1;
        const random = (n: number) => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed % n;
        };
        for (let step = 0; step < 60; step += 1) {
          const id = 1 + random(12);
          const tag = random(3) === 0 ? undefined : `t${random(3)}`;
          const name = `n${clientIndex}-${step}`;
          const kind = random(10);
          let status: number;
          if (kind < 3) status = (await call('POST', `${service.url}/plants`, { id, name, ...(tag !== undefined && { tag }) })).status;
          else if (kind < 5) status = (await call('DELETE', `${service.url}/plants/${id}`)).status;
          else if (kind < 7) status = (await call('PATCH', `${service.url}/plants/${id}`, { name, tag: tag ?? null })).status;
          else {
            // Read, then change on what was read: another client may have changed it in between (412).
            const read = await call('GET', `${service.url}/plants/${id}`);
            const headers: Record<string, string> = read.etag ? { 'if-match': read.etag } : {};
            status = (await call('PATCH', `${service.url}/plants/${id}`, random(2) === 0 ? { name } : { tag: tag ?? null }, headers))
              .status;
          }
          const key = `${kind < 3 ? 'POST' : kind < 5 ? 'DELETE' : 'PATCH'} ${status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
      });
      await Promise.all(clients);
      const requestsMs = performance.now() - started;
      expect(
        [...statuses.keys()].every((key) => /^(POST (200|409)|DELETE (204|404)|PATCH (200|404|412))$/.test(key)),
        JSON.stringify([...statuses]),
      ).toBe(true);

      // Delivered once no plant holds an event or a tombstone.
      const deadline = Date.now() + 60_000;
      while ((await database.plants.countDocuments({ $or: [{ changes: { $exists: true } }, { tombstone: true }] })) > 0) {
        if (Date.now() > deadline) throw new Error('the change events were not all delivered within a minute');
        await sleep(50);
      }
      const deliveredMs = performance.now() - started;
      const store = await listAll(services[0]?.url ?? '');
      expect([...view.plants.values()].sort(byId)).toStrictEqual(store.sort(byId));
      expect(view.outOfOrder).toStrictEqual([]);
      // Each event accepted once (its webhook-id unique), none unverified; both processes delivered.
      expect(new Set(view.accepted.map((request) => request.id)).size).toBe(view.accepted.length);
      expect(receiver.received.filter((request) => request.verifyError !== undefined)).toStrictEqual([]);
      // One event per create and delete answered, and per PATCH answered 200 but one that changed nothing.
      const count = (key: string) => statuses.get(key) ?? 0;
      expect(view.accepted.length).toBeGreaterThanOrEqual(count('POST 200') + count('DELETE 204'));
      expect(view.accepted.length).toBeLessThanOrEqual(count('POST 200') + count('DELETE 204') + count('PATCH 200'));
      for (const service of services) expect(await service.stop('SIGTERM')).toBe(0);
      const byProcess = services.map((service) => service.output().match(/"outbox":"change"[^\n]*"msg":"webhook delivered"/g)?.length ?? 0);
      expect(Math.min(...byProcess)).toBeGreaterThan(0);
      console.log(
        `change events: ${JSON.stringify(Object.fromEntries(statuses))}; ${view.accepted.length} events accepted (by each process ${JSON.stringify(byProcess)}), ` +
          `${receiver.received.length} attempts; requests ${Math.round(requestsMs)} ms, all delivered ${Math.round(deliveredMs)} ms`,
      );
    } finally {
      await Promise.all(services.map((service) => service.stop('SIGKILL')));
      await receiver.close();
      await database.drop();
    }
  }, 120_000);
});

describe('SIGKILL', () => {
  it('after a create, a patch and a delete answered while the receiver fails: the restarted service delivers them, in order', async () => {
    const database = freshDatabase();
    const receiver = await startWebhookReceiver({ secret: SECRET });
    let up = false;
    const view = mirror(() => up);
    receiver.respond = view.respond;
    // A lease of WEBHOOK_TIMEOUT_MS + 2 × MONGODB_TIMEOUT_MS + 1 s: what the restarted service may wait for the killed one's.
    const env = serviceEnv(database.uri, receiver.url('/changes'), {
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1000',
      MONGODB_TIMEOUT_MS: '1000',
    });
    let service = await startService(env);
    try {
      expect((await call('POST', `${service.url}/plants`, { id: 1, name: 'Fern' })).status).toBe(200);
      expect((await call('PATCH', `${service.url}/plants/1`, { tag: 'shade' })).status).toBe(200);
      expect((await call('POST', `${service.url}/plants`, { id: 2, name: 'Ivy' })).status).toBe(200);
      expect((await call('DELETE', `${service.url}/plants/2`)).status).toBe(204);
      expect(await service.stop('SIGKILL')).toBeNull();
      expect(view.accepted).toHaveLength(0);

      service = await startService(env);
      up = true;
      await receiver.waitFor(() => view.accepted.length === 4, 30_000);
      expect(
        view.accepted.map((request) => `${(request.verified as ChangeEvent).type} ${(request.verified as ChangeEvent).data.id}`).sort(),
      ).toStrictEqual(['plant.created 1', 'plant.created 2', 'plant.deleted 2', 'plant.updated 1']);
      expect(view.outOfOrder).toStrictEqual([]);
      expect([...view.plants.values()]).toStrictEqual([{ id: 1, name: 'Fern', tag: 'shade' }]);
      expect(await service.stop('SIGTERM')).toBe(0);
    } finally {
      await service.stop('SIGKILL');
      await receiver.close();
      await database.drop();
    }
  }, 60_000);
});
