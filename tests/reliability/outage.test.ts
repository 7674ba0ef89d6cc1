// MongoDB stops answering (a black hole: connections accepted, nothing answered) under the running
// service: every route and /readyz answers 503 within MONGODB_TIMEOUT_MS and a little, measured
// from outside, and the service serves again within 2 s of MongoDB answering, without a restart.
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testMongoUri } from '../helpers/app.js';
import { startService, type ServiceProcess } from '@plant-store/service-launcher';
import { startMongoWireProxy, type MongoWireProxy } from '../helpers/mongo-wire-proxy.js';

const TOKEN = 'outage-test-token';
const TIMEOUT_MS = 1_500;
/** Time beyond MONGODB_TIMEOUT_MS allowed for the rest of the request. */
const SLACK_MS = 1_000;
const HEAL_MS = 2_000;

const mongoUri = testMongoUri();
let proxy: MongoWireProxy;
let service: ServiceProcess | undefined;
beforeAll(async () => {
  proxy = await startMongoWireProxy(mongoUri);
});
afterEach(async () => {
  proxy.blackHole(false);
  await service?.stop('SIGKILL');
  service = undefined;
});
afterAll(async () => {
  await proxy.close();
});

async function startServiceThroughProxy(): Promise<ServiceProcess> {
  const dbName = new ConnectionString(mongoUri).pathname.slice(1);
  service = await startService({
    MONGODB_URI: proxy.uri(dbName),
    MONGODB_TIMEOUT_MS: String(TIMEOUT_MS),
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'info',
  });
  return service;
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };
const trpcInput = (value: unknown) => `input=${encodeURIComponent(JSON.stringify(value))}`;

/** Every route that reaches MongoDB, as a client sends it. */
const routes: Record<string, (url: string, id: number) => Promise<Response>> = {
  'GET /readyz': (url) => fetch(`${url}/readyz`),
  'POST /plants': (url, id) => fetch(`${url}/plants`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: `plant ${id}` }) }),
  'GET /plants': (url) => fetch(`${url}/plants?limit=10`, { headers: auth }),
  'GET /plants/{id}': (url) => fetch(`${url}/plants/1`, { headers: auth }),
  'DELETE /plants/{id}': (url, id) => fetch(`${url}/plants/${id}`, { method: 'DELETE', headers: auth }),
  'POST /trpc/createPlant': (url, id) =>
    fetch(`${url}/trpc/createPlant`, { method: 'POST', headers: json, body: JSON.stringify({ id, name: `plant ${id}` }) }),
  'GET /trpc/listPlants': (url) => fetch(`${url}/trpc/listPlants?${trpcInput({ limit: 10 })}`, { headers: auth }),
  'GET /trpc/getPlant': (url) => fetch(`${url}/trpc/getPlant?${trpcInput({ id: 1 })}`, { headers: auth }),
  'POST /trpc/deletePlant': (url, id) => fetch(`${url}/trpc/deletePlant`, { method: 'POST', headers: json, body: JSON.stringify({ id }) }),
};

interface Timed {
  route: string;
  status: number;
  retryAfter: string | null;
  ms: number;
}

/** Sends every route at once and times each answer. */
async function everyRoute(url: string, firstId: number): Promise<Timed[]> {
  return Promise.all(
    Object.entries(routes).map(async ([route, send], index) => {
      const started = performance.now();
      const response = await send(url, firstId + index);
      await response.arrayBuffer();
      return {
        route,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        ms: Math.round(performance.now() - started),
      };
    }),
  );
}

function expectRefusedInTime(answers: Timed[], output: string): void {
  for (const answer of answers) {
    expect(answer.status, `${answer.route}\n${output.slice(-2_000)}`).toBe(503);
    expect(answer.retryAfter, answer.route).toBe('1');
    expect(answer.ms, answer.route).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  }
}

/** Milliseconds from now to the first 200 of a create, asking every 50 ms. */
async function msUntilServing(url: string, id: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 10_000) {
    const response = await routes['POST /plants']?.(url, id);
    if (response?.status === 200) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Number.POSITIVE_INFINITY;
}

/** The service's lines about its MongoDB (server/db/mongo-database.ts). */
function databaseLog(output: string): { level: number; msg: string; cause?: string; servers?: string }[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"component":"mongodb"'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

describe('MongoDB stops answering under the running service', () => {
  it('every route and /readyz answer 503 within MONGODB_TIMEOUT_MS + 1 s, the outage is logged once with its cause, and it heals within 2 s', async () => {
    const running = await startServiceThroughProxy();
    for (const id of [1, 2, 3]) expect((await routes['POST /plants']?.(running.url, id))?.status).toBe(200);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);

    proxy.blackHole(true);
    // /readyz answers from a ping of the last tenth of a second: past it, the next caller's ping meets the black hole.
    await new Promise((resolve) => setTimeout(resolve, 150));
    // At once, while the service still holds connections to MongoDB...
    const first = await everyRoute(running.url, 100);
    // ...and again once those have been given up.
    const second = await everyRoute(running.url, 200);
    expectRefusedInTime([...first, ...second], running.output());
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);

    proxy.blackHole(false);
    const healMs = await msUntilServing(running.url, 300);
    expect(healMs).toBeLessThan(HEAL_MS);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);

    const log = databaseLog(running.output());
    const warnings = log.filter((line) => line.level === 40);
    expect(warnings, running.output().slice(-3_000)).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: expect.stringMatching(/^MongoDB is unavailable/) as unknown,
      cause: expect.stringMatching(/^Mongo\w*Error: /) as unknown,
      servers: new URL(proxy.uri('x').replace(/^mongodb:/, 'http:')).host,
    });
    expect(log.filter((line) => line.msg === 'MongoDB answers again')).toHaveLength(1);
    // The database's one warning replaces a line per refused request.
    expect(running.output()).not.toContain('request refused');
    expect(running.output()).not.toMatch(/"level":(50|60)/);
    console.log(
      `under a black hole, time to 503 per route (ms): ${JSON.stringify(Object.fromEntries(first.map((answer, index) => [answer.route, [answer.ms, second[index]?.ms]])))}; served again ${Math.round(healMs)} ms after MongoDB answered`,
    );
  }, 60_000);

  it('from the start: a first connect into the black hole is refused in time, and heals once MongoDB answers', async () => {
    proxy.blackHole(true);
    const running = await startServiceThroughProxy();
    expectRefusedInTime(await everyRoute(running.url, 400), running.output());

    proxy.blackHole(false);
    const healMs = await msUntilServing(running.url, 500);
    expect(healMs).toBeLessThan(HEAL_MS);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    console.log(`first connect into a black hole: served again ${Math.round(healMs)} ms after MongoDB answered`);
  }, 60_000);

  it('SIGTERM while MongoDB does not answer: requests in flight get their 503, and the process exits 0 promptly', async () => {
    const running = await startServiceThroughProxy();
    expect((await routes['POST /plants']?.(running.url, 600))?.status).toBe(200);
    proxy.blackHole(true);
    const inFlight = everyRoute(running.url, 700);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalledAt = performance.now();
    const exitCode = await running.stop('SIGTERM');
    const exitMs = performance.now() - signalledAt;
    expect(exitCode, running.output().slice(-2_000)).toBe(0);
    expect(exitMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expectRefusedInTime(await inFlight, running.output());
  }, 60_000);
});
