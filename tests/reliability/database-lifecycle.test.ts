// The built service as a process, and its MongoDB as another, which comes late, dies and comes
// back, or freezes: the service answers 200 or 503 (never anything else, never late), heals within
// 2 s of MongoDB answering again, loses no plant it answered 200, and says once why it refused.
import { MongoClient } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, startService, type ServiceProcess } from '@plant-store/service-launcher';
import { newWebhookSecret, startWebhookReceiver } from '@plant-store/service-launcher';
import { mongodProcess, type MongodProcess } from '../helpers/mongod-process.js';
import { healing, slowest, startTraffic, tally, unexpected, type Traffic } from '../helpers/plant-traffic.js';

const TOKEN = 'lifecycle-test-token';
const DB_NAME = 'lifecycle';
const TIMEOUT_MS = 1_000;
/** Time beyond MONGODB_TIMEOUT_MS an answer may take. */
const SLACK_MS = 1_000;
/** Once MongoDB answers again, the service serves within this long. */
const HEAL_MS = 2_000;
/** How long traffic runs after MongoDB answers again: the heal, then a while of serving. */
const AFTER_MS = HEAL_MS + 1_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let mongod: MongodProcess;
let service: ServiceProcess | undefined;
let traffic: Traffic | undefined;
beforeEach(async () => {
  mongod = await mongodProcess();
});
afterEach(async () => {
  await traffic?.stop();
  traffic = undefined;
  await service?.stop('SIGKILL');
  service = undefined;
  await mongod.stop();
});

async function startServiceOn(env: Record<string, string> = {}): Promise<ServiceProcess> {
  service = await startService({
    MONGODB_URI: mongod.uri(DB_NAME),
    MONGODB_TIMEOUT_MS: String(TIMEOUT_MS),
    API_TOKENS: TOKEN,
    LOG_LEVEL: 'info',
    ...env,
  });
  return service;
}

function runTraffic(url: string): Traffic {
  traffic = startTraffic({ url, token: TOKEN });
  return traffic;
}

/** The service's log lines about its MongoDB (server/db/mongo-database.ts). */
function databaseLog(running: ServiceProcess): { level: number; msg: string; cause?: string; monitor?: string; servers?: string }[] {
  return running
    .output()
    .split('\n')
    .filter((line) => line.includes('"component":"mongodb"'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

async function storedIds(): Promise<Set<number>> {
  const client = await new MongoClient(mongod.uri(DB_NAME), { serverSelectionTimeoutMS: 5_000 }).connect();
  try {
    return new Set((await client.db().collection('plants').distinct('_id')).map(Number));
  } finally {
    await client.close();
  }
}

/** Only 200 and 503, each within the bound, healed within HEAL_MS of `answeringAt` and serving since. */
function expectHealed(running: ServiceProcess, { exchanges }: Traffic, answeringAt: number): void {
  const errors = running
    .output()
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line));
  const summary = `${JSON.stringify(tally(exchanges))}\n${errors.slice(0, 3).join('\n') || running.output().slice(-3_000)}`;
  expect(unexpected(exchanges), summary).toStrictEqual([]);
  const slowestAnswer = slowest(exchanges);
  const slowLines = running
    .output()
    .split('\n')
    .filter((line) => /"ms":\d{4,}/.test(line));
  expect(slowestAnswer.ms, `${JSON.stringify(slowestAnswer.exchange)}\n${slowLines.join('\n')}`).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  const { healMs, refusedAfter } = healing(exchanges, answeringAt);
  expect(healMs, summary).toBeLessThanOrEqual(HEAL_MS);
  expect(refusedAfter, summary).toStrictEqual([]);
  console.log(
    `healed ${Math.round(healMs)} ms after MongoDB answered; slowest answer ${Math.round(slowestAnswer.ms)} ms; ${JSON.stringify(tally(exchanges))}`,
  );
}

/**
 * Starts MongoDB, with traffic until AFTER_MS after it answers; then the service must have healed in
 * time, be ready, and have stored every plant it answered 200.
 */
async function expectServingOnceStarted(running: ServiceProcess): Promise<Traffic> {
  const answeringAt = await mongod.start();
  const load = runTraffic(running.url);
  await sleep(AFTER_MS);
  await load.stop();
  expectHealed(running, load, answeringAt);
  expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  const stored = await storedIds();
  expect(load.okIds().filter((id) => !stored.has(id))).toStrictEqual([]);
  return load;
}

/** One warning with its cause (the operation's, and the driver monitor's) and address for the one outage, and one line when it ended. */
function expectOutageLoggedOnce(running: ServiceProcess, cause: RegExp): void {
  const lines = databaseLog(running);
  const warnings = lines.filter((line) => line.level === 40);
  expect(warnings, running.output().slice(-3_000)).toHaveLength(1);
  expect(warnings[0]?.msg).toMatch(/^MongoDB is unavailable/);
  expect(`${warnings[0]?.cause} / ${warnings[0]?.monitor}`).toMatch(cause);
  expect(warnings[0]?.servers).toBe(`127.0.0.1:${mongod.port}`);
  expect(lines.filter((line) => line.msg === 'MongoDB answers again')).toHaveLength(1);
  expect(running.output()).not.toMatch(/"level":(50|60)/);
}

describe('MongoDB absent when the service starts', () => {
  it('with no request yet: the service tells at once, and serves within 2 s of MongoDB starting', async () => {
    const running = await startServiceOn();
    // Long enough for the service's own first connect to fail.
    await sleep(TIMEOUT_MS + 500);
    await expectServingOnceStarted(running);
    expectOutageLoggedOnce(running, /ECONNREFUSED/);
  }, 60_000);

  it('until a probe and a create were refused: both 503 with Retry-After in time, then it heals within 2 s of MongoDB starting', async () => {
    const running = await startServiceOn();
    for (const send of [
      () => fetch(`${running.url}/readyz`),
      () =>
        fetch(`${running.url}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{"id":1,"name":"early"}',
        }),
    ]) {
      const sentAt = performance.now();
      const response = await send();
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toStrictEqual({ error: 503, message: expect.any(String) as unknown });
      expect(performance.now() - sentAt).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    await expectServingOnceStarted(running);
    expectOutageLoggedOnce(running, /ECONNREFUSED/);
  }, 60_000);

  it("meanwhile the webhook backlog gauges read NaN, spelled as Prometheus's text format spells it", async () => {
    const metricsPort = await freePort();
    // The gauges come with webhooks; nothing is delivered while MongoDB is away.
    await startServiceOn({
      METRICS_PORT: String(metricsPort),
      WEBHOOK_URLS: 'http://127.0.0.1:9/hook',
      WEBHOOK_SECRET: newWebhookSecret(),
    });
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const backlog = text.split('\n').filter((line) => line.startsWith('plant_store_webhook_') && !line.includes('_total'));
    expect(backlog.map((line) => line.split(' ')[0])).toStrictEqual([
      'plant_store_webhook_events_due',
      'plant_store_webhook_oldest_due_event_age_seconds',
      'plant_store_webhook_events_failed',
    ]);
    for (const line of backlog) expect(line).toMatch(/ NaN$/);
  }, 60_000);

  it('with webhooks on (the worker tries MongoDB at once): it heals too, and every plant answered 200 reaches the receiver', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver({ secret });
    try {
      const running = await startServiceOn({ WEBHOOK_URLS: receiver.url(), WEBHOOK_SECRET: secret });
      await sleep(TIMEOUT_MS + 500);
      const okIds = (await expectServingOnceStarted(running)).okIds();
      await receiver.waitFor(
        (received) => new Set(received.map((request) => (JSON.parse(request.body) as { id: number }).id)).size >= okIds.length,
        15_000,
      );
      const delivered = new Set(receiver.received.map((request) => (JSON.parse(request.body) as { id: number }).id));
      expect(okIds.filter((id) => !delivered.has(id))).toStrictEqual([]);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});

describe('MongoDB under load', () => {
  it('killed and started again on the same port: 503s meanwhile, healed within 2 s, no plant answered 200 lost', async () => {
    await mongod.start();
    const running = await startServiceOn();
    const load = runTraffic(running.url);
    await sleep(1_000);
    // Every plant answered 200 so far is stored.
    const okBeforeKill = load.okIds();
    const storedBeforeKill = await storedIds();
    expect(okBeforeKill.length).toBeGreaterThan(0);
    expect(okBeforeKill.filter((id) => !storedBeforeKill.has(id))).toStrictEqual([]);

    await mongod.kill();
    const killedAt = performance.now();
    await sleep(2 * TIMEOUT_MS);
    const answeringAt = await mongod.start();
    await sleep(AFTER_MS);
    await load.stop();

    expectHealed(running, load, answeringAt);
    expect(load.exchanges.some((exchange) => exchange.outcome === 503 && exchange.sentAt > killedAt)).toBe(true);
    const stored = await storedIds();
    // Those answered in the instant before the SIGKILL too: MongoDB journalled them before answering.
    const mustBeStored = load.okIds();
    expect(mustBeStored.length).toBeGreaterThan(okBeforeKill.length);
    expect(mustBeStored.filter((id) => !stored.has(id))).toStrictEqual([]);
    expectOutageLoggedOnce(running, /./);
  }, 60_000);

  it('frozen (SIGSTOP) and thawed: each 503 within the timeout, healed within 2 s, every plant answered 200 stored', async () => {
    await mongod.start();
    const running = await startServiceOn();
    const load = runTraffic(running.url);
    await sleep(1_000);
    mongod.freeze();
    const frozenAt = performance.now();
    await sleep(2.5 * TIMEOUT_MS);
    const answeringAt = mongod.thaw();
    await sleep(AFTER_MS);
    await load.stop();

    expectHealed(running, load, answeringAt);
    expect(load.exchanges.some((exchange) => exchange.outcome === 503 && exchange.sentAt > frozenAt)).toBe(true);
    const stored = await storedIds();
    expect(load.okIds().filter((id) => !stored.has(id))).toStrictEqual([]);
    expectOutageLoggedOnce(running, /MongoDeadlineError|timed out/);
  }, 60_000);
});
