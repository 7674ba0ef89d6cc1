// Slow or idle clients cannot hold connections: request and keep-alive timeouts close them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { openRawSocket, parseResponse, postHead } from '../helpers/raw-socket.js';

const REQUEST_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 400;
/** Node checks for expired requests periodically; the service asks for a check often enough for this. */
const SLACK_MS = 1000;
/** Node keeps an idle keep-alive socket open a fixed 1 s past keepAliveTimeout, so it never closes one a client is just reusing. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1000;

let testApp: TestApp;
let url: string;
beforeAll(async () => {
  testApp = await startTestApp({
    env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS) },
  });
  url = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await testApp.close();
});

describe('slow clients', () => {
  it.each([
    ['sends the headers, then stalls before the body', postHead('/plants', 40, { authorization: `Bearer ${TEST_TOKEN}` })],
    ['sends half the body, then stalls', postHead('/plants', 40, { authorization: `Bearer ${TEST_TOKEN}` }) + '{"id": 1,'],
    ['sends part of the headers, then stalls', 'POST /plants HTTP/1.1\r\nhost: localhost\r\ncontent-type: appl'],
  ])('a client that %s is cut off after REQUEST_TIMEOUT_MS', async (_case, partial) => {
    const socket = await openRawSocket(url);
    const sentAt = performance.now();
    socket.write(partial);
    const { data, atMs } = await socket.closed;
    expect(atMs - sentAt).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(atMs - sentAt).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
    // The API's Error shape, like every other failure.
    expect(parseResponse(data)).toStrictEqual({ status: 408, body: { error: 408, message: 'the request took too long to arrive' } });
  });

  it('a client that stalls still gets its 408 when RESPONSE_TIMEOUT_MS is no longer than REQUEST_TIMEOUT_MS', async () => {
    const sameTimeouts = await startTestApp({
      env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), RESPONSE_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), MONGODB_TIMEOUT_MS: '250' },
    });
    try {
      const socket = await openRawSocket(await sameTimeouts.app.listen({ host: '127.0.0.1', port: 0 }));
      const sentAt = performance.now();
      socket.write(postHead('/plants', 40, { authorization: `Bearer ${TEST_TOKEN}` }));
      const { data, atMs } = await socket.closed;
      expect(atMs - sentAt).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
      expect(parseResponse(data)).toStrictEqual({ status: 408, body: { error: 408, message: 'the request took too long to arrive' } });
    } finally {
      await sameTimeouts.close();
    }
  });

  it('bytes that are not HTTP get a 400 in the Error shape and a closed connection', async () => {
    const socket = await openRawSocket(url);
    socket.write('HELLO THERE\r\n\r\n');
    const { data } = await socket.closed;
    expect(parseResponse(data)).toStrictEqual({ status: 400, body: { error: 400, message: 'the request is not valid HTTP' } });
  });

  it('headers over the size limit get a 431 in the Error shape', async () => {
    const socket = await openRawSocket(url);
    socket.write(`GET /healthz HTTP/1.1\r\nhost: localhost\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const { data } = await socket.closed;
    expect(parseResponse(data)).toStrictEqual({
      status: 431,
      body: {
        error: 431,
        message:
          'the request line and headers are too large: a long query (such as a tRPC batch of many calls) goes in a POST body, or in several requests',
      },
    });
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const socket = await openRawSocket(url);
    const body = JSON.stringify({ id: 9, name: 'Kept alive' });
    socket.write(postHead('/plants', body.length, { authorization: `Bearer ${TEST_TOKEN}` }) + body);
    while (!socket.received().includes('Kept alive')) await new Promise((resolve) => setTimeout(resolve, 10));
    const answeredAt = performance.now();
    const { data, atMs } = await socket.closed;
    expect(parseResponse(data).status).toBe(200);
    expect(atMs - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(atMs - answeredAt).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS / 2);
  });
});

describe('a keep-alive connection longer than the request timeout', () => {
  let longIdle: TestApp;
  let longIdleUrl: string;
  beforeAll(async () => {
    longIdle = await startTestApp({ env: { REQUEST_TIMEOUT_MS: '300', KEEP_ALIVE_TIMEOUT_MS: '3000' } });
    longIdleUrl = await longIdle.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await longIdle.close();
  });

  it('stays open while idle past REQUEST_TIMEOUT_MS and its checks, and answers its next request', async () => {
    const socket = await openRawSocket(longIdleUrl);
    const request = (id: number) => {
      const body = JSON.stringify({ id, name: `Idle ${id}` });
      socket.write(postHead('/plants', body.length, { authorization: `Bearer ${TEST_TOKEN}` }) + body);
    };
    request(21);
    await vi.waitUntil(() => socket.received().includes('Idle 21'), { timeout: 2_000 });
    // Several of Node's request-timeout checks pass while the connection is idle.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    request(22);
    await vi.waitUntil(() => socket.received().includes('Idle 22'), { timeout: 2_000 });
    expect(socket.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    expect(socket.received()).not.toMatch(/ 408 /);
  });
});
