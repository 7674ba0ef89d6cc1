import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { freePort, startService, type ServiceProcess } from '@plant-store/service-launcher';
import { newWebhookSecret, startWebhookReceiver, type WebhookReceiver } from '@plant-store/service-launcher';
import { metricFamilies, namingProblems, parseSamples, sampleValue, type Sample } from '../helpers/prometheus-text.js';

const TOKEN = 'metrics-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };

/**
 * The service process with METRICS_PORT set, scraped over HTTP as Prometheus scrapes it, in both
 * FAST_PATH modes: each request sent moves its operation's counter and histogram, by transport and
 * status code, and the same way whichever adapters serve it.
 */
describe.each(['on', 'off'])('metrics of the service process, FAST_PATH=%s', (fastPath) => {
  let service: ServiceProcess;
  let receiver: WebhookReceiver;
  let metricsUrl: string;

  beforeAll(async () => {
    const secret = newWebhookSecret();
    receiver = await startWebhookReceiver({ secret });
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    service = await startService({
      MONGODB_URI: testMongoUri(),
      API_TOKENS: TOKEN,
      FAST_PATH: fastPath,
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      WEBHOOK_URLS: receiver.url('/hook'),
      WEBHOOK_SECRET: secret,
      WEBHOOK_RETRY_BASE_MS: '50',
      CORS_ORIGINS: 'https://garden.example',
    });
  });

  afterAll(async () => {
    expect(await service.stop()).toBe(0);
    await receiver.close();
  });

  async function scrape(): Promise<Sample[]> {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseSamples(await response.text());
  }

  const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string>) =>
    sampleValue(after, name, labels) - sampleValue(before, name, labels);

  it('counts and times REST and tRPC requests by operation, transport and status code, never by raw path', async () => {
    const before = await scrape();
    const id = 700_000 + Math.floor(Math.random() * 100_000);
    const send = (path: string, init: RequestInit = {}) => fetch(`${service.url}${path}`, { headers: auth, ...init });
    expect((await send('/plants', { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Fern' }) })).status).toBe(200);
    expect((await send('/plants', { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Other fern' }) })).status).toBe(409);
    expect((await send(`/plants/${id}`)).status).toBe(200);
    expect((await send(`/plants/${id + 1}`)).status).toBe(404);
    expect((await send('/plants?limit=5')).status).toBe(200);
    expect(
      (await send('/plants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1,"name":"x"}' })).status,
    ).toBe(401);
    expect(
      (await send('/trpc/createPlant', { method: 'POST', headers: json, body: JSON.stringify({ id: id + 2, name: 'Ivy' }) })).status,
    ).toBe(200);
    expect((await send(`/trpc/getPlant?input=${encodeURIComponent(JSON.stringify({ id: id + 3 }))}`)).status).toBe(404);
    expect((await send(`/plants/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await send('/nope/1')).status).toBe(404);
    // An escaped path is the operation it spells: the create, replayed.
    expect((await send('/%70lants', { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Fern' }) })).status).toBe(200);
    // A URL no operation serves, though an operation's route takes it: an empty id.
    expect((await send('/plants/', { method: 'DELETE' })).status).toBe(405);
    // `GET /plants/` lists, as trpc-to-openapi reads it.
    expect((await send('/plants/')).status).toBe(200);
    // What no route takes: a method none serves, a path Fastify cannot read.
    expect((await send('/nope', { method: 'PROPFIND' })).status).toBe(404);
    expect((await send('/plants/%ff')).status).toBe(400);
    expect((await send('/trpc/%ff')).status).toBe(400);
    // A browser's CORS preflights call no operation, on REST as on /trpc.
    const preflight = (method: string) => ({
      method: 'OPTIONS',
      headers: { origin: 'https://garden.example', 'access-control-request-method': method, 'access-control-request-headers': 'if-match' },
    });
    expect((await send(`/plants/${id}`, preflight('PATCH'))).status).toBe(204);
    expect((await send('/trpc/updatePlant', preflight('POST'))).status).toBe(204);
    const after = await scrape();

    const requests = (operation: string, transport: string, status: number) =>
      delta(before, after, 'plant_store_requests_total', { operation, transport, status_code: String(status) });
    const timed = (operation: string, transport: string, status: number) =>
      delta(before, after, 'plant_store_request_duration_seconds_count', { operation, transport, status_code: String(status) });
    const expected: [string, string, number, number][] = [
      ['createPlant', 'rest', 200, 2],
      ['createPlant', 'rest', 409, 1],
      ['createPlant', 'rest', 401, 1],
      ['getPlant', 'rest', 200, 1],
      ['getPlant', 'rest', 404, 1],
      ['listPlants', 'rest', 200, 2],
      ['deletePlant', 'rest', 204, 1],
      ['createPlant', 'trpc', 200, 1],
      ['getPlant', 'trpc', 404, 1],
      ['other', 'rest', 404, 2],
      ['other', 'rest', 405, 1],
      ['other', 'rest', 400, 1],
      ['other', 'trpc', 400, 1],
    ];
    for (const [operation, transport, status, count] of expected) {
      expect(requests(operation, transport, status), `${operation} ${transport} ${status}`).toBe(count);
      expect(timed(operation, transport, status), `${operation} ${transport} ${status} timed`).toBe(count);
    }
    const total = expected.reduce((sum, [, , , count]) => sum + count, 0);
    expect(delta(before, after, 'plant_store_requests_total', {})).toBe(total);
    // The latency histogram's buckets are cumulative, its sum positive.
    expect(
      delta(before, after, 'plant_store_request_duration_seconds_sum', { operation: 'createPlant', transport: 'rest' }),
    ).toBeGreaterThan(0);
    expect(
      delta(before, after, 'plant_store_request_duration_seconds_bucket', {
        operation: 'createPlant',
        transport: 'rest',
        status_code: '200',
        le: '+Inf',
      }),
    ).toBe(2);
    // Route templates and names only: no label carries an id.
    const labelValues = after
      .filter((sample) => sample.name.startsWith('plant_store_request'))
      .flatMap((sample) => Object.values(sample.labels));
    expect(labelValues.filter((value) => value.includes(String(id)))).toStrictEqual([]);
  });

  it('times MongoDB commands by name and outcome, and shows the connection pool', async () => {
    const before = await scrape();
    const id = 800_000 + Math.floor(Math.random() * 100_000);
    for (let i = 0; i < 2; i++)
      await fetch(`${service.url}/plants`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Moss' }) });
    const after = await scrape();
    expect(
      delta(before, after, 'plant_store_mongodb_command_duration_seconds_count', { command: 'insert', outcome: 'success' }),
    ).toBeGreaterThanOrEqual(2);
    const pools = after.filter((sample) => sample.name === 'plant_store_mongodb_pool_connections');
    expect(pools.length).toBeGreaterThan(0);
    expect(pools.every((pool) => pool.value >= 1 && /:\d+$/.test(pool.labels.server ?? ''))).toBe(true);
    expect(after.filter((sample) => sample.name === 'plant_store_mongodb_pool_connections_in_use').every((pool) => pool.value >= 0)).toBe(
      true,
    );
    expect(after.filter((sample) => sample.name === 'plant_store_mongodb_pool_waiting').every((pool) => pool.value >= 0)).toBe(true);
  });

  it('counts webhook deliveries by outcome and reads the backlog of due and failed events', async () => {
    receiver.respond = () => 200;
    const before = await scrape();
    const id = 900_000 + Math.floor(Math.random() * 90_000);
    expect(
      (await fetch(`${service.url}/plants`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: 'Palm' }) })).status,
    ).toBe(200);
    await receiver.waitFor((received) => received.some((webhook) => webhook.body.includes(`"id":${id}`)));
    let after = await scrape();
    for (let i = 0; i < 50 && delta(before, after, 'plant_store_webhook_deliveries_total', { outcome: 'delivered' }) < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await scrape();
    }
    expect(delta(before, after, 'plant_store_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(sampleValue(after, 'plant_store_webhook_events_due')).toBe(0);
    expect(sampleValue(after, 'plant_store_webhook_oldest_due_event_age_seconds')).toBe(0);
    expect(sampleValue(after, 'plant_store_webhook_events_failed')).toBe(0);
  });

  it('exposes process metrics: CPU, heap, event-loop lag', async () => {
    const samples = await scrape();
    for (const name of ['process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(
        samples.some((sample) => sample.name === name),
        name,
      ).toBe(true);
    }
  });

  it("names every metric as Prometheus's own lint (promtool check metrics) asks", async () => {
    const response = await fetch(metricsUrl);
    const text = await response.text();
    // The webhook and MongoDB series have samples by now (the tests above moved them), so every family is named.
    expect(metricFamilies(text).length).toBeGreaterThan(20);
    expect(namingProblems(text)).toEqual([]);
  });

  it('is not served on the API port: GET /metrics there is a 404 in the Error shape', async () => {
    const response = await fetch(`${service.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toStrictEqual({ error: 404, message: 'no route for GET /metrics' });
  });
});

describe('the service process without METRICS_PORT', () => {
  it('has no metrics listener and counts nothing', async () => {
    const service = await startService({ MONGODB_URI: testMongoUri(), API_TOKENS: TOKEN, LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
      expect(service.output()).not.toMatch(/metrics at/);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
