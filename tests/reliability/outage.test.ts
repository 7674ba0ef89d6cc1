// The database goes away under the running service and comes back on the same address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/http-post.js';
import { freePort, startService, type ServiceProcess } from '../helpers/service-process.js';
import { resolveMongo, type MongoSource } from '../../server/db/mongo-source.js';

const TOKEN = 'outage-test-token';
const TIMEOUT_MS = 1500;
/** Time beyond MONGODB_TIMEOUT_MS allowed for the rest of the request. */
const SLACK_MS = 1000;

let mongo: MongoSource;
let service: ServiceProcess;
beforeAll(async () => {
  // A MongoDB of this test's own (never MONGODB_URI: that one must not be stopped), chosen as the resolver chooses.
  mongo = await resolveMongo({ port: await freePort() });
  service = await startService({ MONGODB_URI: `${mongo.uri}outage`, MONGODB_TIMEOUT_MS: String(TIMEOUT_MS), API_TOKENS: TOKEN, LOG_LEVEL: 'warn' });
});
afterAll(async () => {
  await service.stop('SIGTERM');
  await mongo.stop();
});

const create = (id: number) => postJson(`${service.url}/plants`, { id, name: `plant ${id}` }, TOKEN);
const ready = () => fetch(`${service.url}/readyz`).then((response) => response.status);

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('MongoDB stopped and restarted under the running service', () => {
  it('answers 503 while it is down, stays up, and serves again once it is back, without a restart', async () => {
    expect((await create(1)).status).toBe(200);
    expect(await ready()).toBe(200);

    await mongo.pause?.();
    for (const id of [2, 3]) {
      const { value: outcome, ms } = await timed(() => create(id));
      expect(outcome.status, service.output()).toBe(503);
      expect(outcome.status !== undefined && JSON.parse(outcome.body)).toStrictEqual({ error: 503, message: expect.any(String) as unknown });
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    const readyWhileDown = await timed(ready);
    expect(readyWhileDown.value).toBe(503);
    expect(readyWhileDown.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(await fetch(`${service.url}/healthz`).then((response) => response.status)).toBe(200);

    await mongo.resume?.();
    // The driver finds the server again by itself; give it a few attempts.
    let outcome = await create(4);
    for (let attempt = 0; attempt < 20 && outcome.status !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      outcome = await create(4);
    }
    expect(outcome).toStrictEqual({ status: 200, body: JSON.stringify({ name: 'plant 4' }) });
    expect(await ready()).toBe(200);
    expect(service.output()).not.toMatch(/"level":(50|60)/);
  });
});
