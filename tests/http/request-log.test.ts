import { afterAll, beforeAll, expect, it } from 'vitest';
import { postPlant, startTestApp, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';

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
  await testApp.app.inject({ method: 'GET', url: '/plants?limit=2&access_token=Lg-secret-1&API%5FKEY=Lg-secret-2&after=5&client_secret=Lg-secret-3&password' });
  await testApp.app.inject({ method: 'GET', url: '/healthz?code=Lg-secret-4&state=kept' });
  const paths = logs.lines().filter((line) => line.msg === 'request completed').map((line) => line.path);
  expect(paths).toContain('/plants?limit=2&access_token=[REDACTED]&API%5FKEY=[REDACTED]&after=5&client_secret=[REDACTED]&password');
  expect(paths).toContain('/healthz?code=[REDACTED]&state=kept');
  expect(logs.text()).not.toMatch(/Lg-secret/);
});
