// The int64 markers (schemas/int64-json.ts) are invisible to clients: the request log and every
// message quote what the client sent, and no client text, even written by a client that learned
// the process's marker key, is read back as anything but what it wrote. Runs in whichever mode
// FAST_PATH says (CI runs both).
import { Long } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int64Json } from '../../schemas/int64-json.js';
import { authHeaders, startTestApp, type TestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';

/** This process's marker for 5, as a client that learned the key would write it in JSON text (`\u0000<key>:5`). */
const markerOfFive = int64Json.mark(5n) as string;
const prefix = markerOfFive.slice(0, -1);
const jsonOf = (text: string) => JSON.stringify(text).slice(1, -1);
const RESERVED = 'holds a string the service reserves: a NUL character followed by its internal int64 marker';

const logs = captureLogs();
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp({ env: { LOG_LEVEL: 'info' }, overrides: { logStream: logs.stream } });
});
afterAll(async () => {
  await testApp.close();
});

const inject = (method: 'GET' | 'POST', url: string, payload?: string) =>
  testApp.app.inject({ method, url, headers: authHeaders(), ...(payload !== undefined && { payload }) });
const trpcGet = (path: string, input: string) => inject('GET', `/trpc/${path}?input=${encodeURIComponent(input)}`);

describe('forged markers', () => {
  const forged = [
    ['a marker', markerOfFive],
    ['a marker with letters for digits', `${prefix}abc`],
    ['the bare prefix', prefix],
    ['a marker inside a name', `Fern ${markerOfFive}`],
  ] as const;

  it.each(forged)('POST /plants refuses %s as a name with 400 and stores nothing', async (_kind, name) => {
    const response = await inject('POST', '/plants', `{"id":424242,"name":"${jsonOf(name)}"}`);
    expect(response.json()).toEqual({ error: 400, message: `the request body ${RESERVED}` });
    expect(await testApp.plants.countDocuments({ _id: Long.fromNumber(424242) })).toBe(0);
  });

  it.each(forged)('/trpc refuses %s in a body and in a query input with BAD_REQUEST', async (_kind, name) => {
    const created = await inject('POST', '/trpc/createPlant', `{"id":434343,"name":"${jsonOf(name)}"}`);
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ error: { message: `the request body ${RESERVED}`, data: { code: 'BAD_REQUEST' } } });
    const fetched = await trpcGet('getPlant', `{"id":"${jsonOf(name)}"}`);
    expect(fetched.statusCode).toBe(400);
    expect(fetched.json()).toMatchObject({ error: { message: `the input parameter ${RESERVED}`, data: { code: 'BAD_REQUEST' } } });
    expect(await testApp.plants.countDocuments({ _id: Long.fromNumber(434343) })).toBe(0);
  });

  it('a marker in a query parameter is never read as the number it names', async () => {
    await inject('POST', '/plants', '{"id":6,"name":"six"}');
    const response = await inject('GET', `/plants?after=${encodeURIComponent(markerOfFive)}`);
    expect(response.statusCode).toBe(400);
    const crooked = await inject('GET', `/plants?after=${encodeURIComponent(`${prefix}abc`)}`);
    expect(crooked.statusCode).toBe(400);
  });
});

describe('what clients and the log see', () => {
  const BIG = '9223372036854775807';

  it('the request log names the path and query the client sent for a tRPC query with a big id', async () => {
    const url = `/trpc/getPlant?input=${encodeURIComponent(`{"id":${BIG}}`)}`;
    const response = await inject('GET', url);
    expect(response.statusCode).toBe(404);
    const line = logs.lines().find((entry) => entry.reqId === response.headers['x-request-id'] && entry.msg === 'request completed');
    expect(line?.path).toBe(url);
    expect(logs.text()).not.toContain(prefix.slice(1));
  });

  it.each([
    ['a body', () => inject('POST', '/trpc/createPlant', `{"id":${BIG},"name":}`), `{"id":${BIG},"name":}`],
    ['a query input', () => trpcGet('getPlant', `{"id":${BIG},}`), `{"id":${BIG},}`],
    ['a REST body', () => inject('POST', '/plants', `{"id":${BIG},"name":}`), `{"id":${BIG},"name":}`],
  ])('a parse error in %s with a big id is worded on the text the client sent', async (_kind, send, text) => {
    const response = await send();
    expect(response.statusCode).toBe(400);
    let reason = '';
    try {
      JSON.parse(text);
    } catch (error) {
      reason = (error as Error).message;
    }
    const answer = response.json<{ message?: string; error?: { message?: string } }>();
    expect(answer.error?.message ?? answer.message).toContain(reason);
    expect(response.body).not.toContain('\\u0000');
  });
});
