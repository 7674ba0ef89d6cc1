import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../routers/plant-store.js';
import { postPlant, startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';
import { scriptedStore } from '../helpers/scripted-store.js';

const logs = captureLogs();

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { LOG_LEVEL: 'info' }, overrides: { logStream: logs.stream } });
});
afterAll(async () => {
  await testApp.close();
});

it('logs one line per request with its id, method, path, status and time', async () => {
  const created = await postPlant(testApp.app, { id: 1, name: 'Logged' });
  const refused = await postPlant(testApp.app, { id: 'x', name: 'Logged' });
  const requestLines = logs.lines().filter((line) => line.msg === 'request completed');
  expect(requestLines).toHaveLength(2);
  expect(requestLines[0]).toMatchObject({ reqId: created.headers['x-request-id'], method: 'POST', path: '/plants', status: 200 });
  expect(requestLines[1]).toMatchObject({ reqId: refused.headers['x-request-id'], method: 'POST', path: '/plants', status: 400 });
  for (const line of requestLines) expect(typeof line.ms).toBe('number');
});

it('logs the path with the values of query parameters named like secrets redacted, the others as sent', async () => {
  await testApp.app.inject({
    method: 'GET',
    url: '/plants?limit=2&access_token=Lg-secret-1&API%5FKEY=Lg-secret-2&after=5&client_secret=Lg-secret-3&password',
  });
  await testApp.app.inject({ method: 'GET', url: '/healthz?code=Lg-secret-4&state=kept' });
  const paths = logs
    .lines()
    .filter((line) => line.msg === 'request completed')
    .map((line) => line.path);
  expect(paths).toContain('/plants?limit=2&access_token=[REDACTED]&API%5FKEY=[REDACTED]&after=5&client_secret=[REDACTED]&password');
  expect(paths).toContain('/healthz?code=[REDACTED]&state=kept');
  expect(logs.text()).not.toMatch(/Lg-secret/);
});

describe('the log line of a request that fails on the server side', () => {
  const failures = captureLogs();
  const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'MongoServerSelectionError' });
  let failing: TestApp;
  beforeAll(async () => {
    const store = scriptedStore({
      create: async ({ name }) => {
        if (name === 'down') throw new StoreUnavailableError({ cause: outage });
        throw new Error('disk on fire');
      },
    });
    failing = await startTestApp({ env: { LOG_LEVEL: 'info' }, overrides: { store, logStream: failures.stream } });
  });
  afterAll(async () => {
    await failing.close();
  });

  it.each([
    ['REST', '/plants'],
    ['tRPC', '/trpc/createPlant'],
  ])('over %s carries the cause of a 503 and of a 500, which the answer does not', async (_transport, url) => {
    const send = (name: string) =>
      failing.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
        payload: { id: 1, name },
      });
    const unavailable = await send('down');
    const broken = await send('bug');
    expect([unavailable.statusCode, broken.statusCode]).toStrictEqual([503, 500]);
    const lineOf = (id: unknown) => failures.lines().find((line) => line.msg === 'request completed' && line.reqId === id);
    expect(lineOf(unavailable.headers['x-request-id'])).toMatchObject({
      status: 503,
      cause: 'MongoServerSelectionError: connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(lineOf(broken.headers['x-request-id'])).toMatchObject({ status: 500, cause: 'Error: disk on fire' });
    expect(unavailable.body).not.toMatch(/ECONNREFUSED|MongoServerSelectionError/);
    expect(broken.body).not.toMatch(/disk on fire/);
  });
});
