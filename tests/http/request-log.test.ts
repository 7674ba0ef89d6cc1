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
