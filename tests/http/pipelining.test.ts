// Requests pipelined on one connection take effect in the order they were sent.
import { describe, expect, it } from 'vitest';
import { startTestApp, TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';
import { scriptedStore } from '../helpers/scripted-store.js';
import { splitResponses } from '../helpers/http-responses.js';
import { openRawSocket } from '../helpers/raw-socket.js';

const listening = useListeningTestApp();
const auth = `authorization: Bearer ${TEST_TOKEN}`;

function request(method: string, path: string, body?: string): string {
  const head = [`${method} ${path} HTTP/1.1`, 'host: localhost', auth];
  if (body !== undefined) head.push('content-type: application/json', `content-length: ${Buffer.byteLength(body)}`);
  return `${head.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

async function pipeline(requests: string[], headRequests: ReadonlySet<number> = new Set()) {
  const socket = await openRawSocket(listening.url);
  socket.write(requests.join(''));
  const deadline = Date.now() + 10_000;
  while (splitResponses(socket.received(), headRequests).length < requests.length && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
  socket.socket.destroy();
  return splitResponses(socket.received(), headRequests);
}

describe('pipelined requests', () => {
  it('run one at a time in order, over REST and tRPC, each with its own request id', async () => {
    const requests = [
      request('POST', '/trpc/createPlant', '{"id":8801,"name":"First"}'),
      request('GET', '/plants/8801'),
      request('DELETE', '/plants/8801'),
      request('POST', '/plants', '{"id":8801,"name":"Second"}'),
      request('GET', '/trpc/getPlant?input=%7B%22id%22%3A8801%7D'),
      request('HEAD', '/plants/8801'),
    ];
    const answers = await pipeline(requests, new Set([5]));
    expect(answers.map((answer) => answer.status)).toStrictEqual([200, 200, 204, 200, 200, 200]);
    expect(JSON.parse(answers[1]?.body ?? '')).toStrictEqual({ id: 8801, name: 'First' });
    expect(JSON.parse(answers[4]?.body ?? '')).toStrictEqual({ result: { data: { id: 8801, name: 'Second' } } });
    expect(new Set(answers.map((answer) => answer.headers['x-request-id'])).size).toBe(requests.length);
  });

  it('POST, DELETE, GET of one plant written back to back answer 200, 204, 404, and leave nothing stored', async () => {
    const answers = await pipeline([
      request('POST', '/plants', '{"id":7777,"name":"Pipelined"}'),
      request('DELETE', '/plants/7777'),
      request('GET', '/plants/7777'),
    ]);
    expect(answers.map((answer) => answer.status)).toStrictEqual([200, 204, 404]);
    expect(await listening.testApp.plants.countDocuments({ name: 'Pipelined' })).toBe(0);
  });
});

describe('a request that is not HTTP, pipelined behind others', () => {
  it('is refused after their answers, which come in order: what took effect is told', async () => {
    const answers = await pipeline([
      request('POST', '/plants', '{"id":7781,"name":"Before garbage"}'),
      request('DELETE', '/plants/7781'),
      'NOT HTTP\r\n\r\n',
    ]);
    expect(answers.map((answer) => answer.status)).toStrictEqual([200, 204, 400]);
    expect(JSON.parse(answers[2]?.body ?? '')).toStrictEqual({ error: 400, message: 'the request is not valid HTTP' });
    expect(await listening.testApp.plants.countDocuments({ name: 'Before garbage' })).toBe(0);
  });
});

/** A store whose creates wait for `release`, recording each call: requests pile up behind a create on its connection. */
function heldCreates() {
  const held: { calls: string[]; release: () => void } = { calls: [], release: () => undefined };
  const store = scriptedStore({
    create: async (plant) => {
      held.calls.push(`create ${plant.name}`);
      await new Promise<void>((resolve) => (held.release = resolve));
      return { name: plant.name };
    },
    delete: (id) => {
      held.calls.push(`delete ${String(id)}`);
      return Promise.resolve(true);
    },
    get: (id) => {
      held.calls.push(`get ${String(id)}`);
      return Promise.resolve({ id, name: 'Held' });
    },
  });
  return { held, store };
}

describe('a pipelined request whose connection closes before its turn', () => {
  it('never runs: only the requests that started take effect', async () => {
    const { held, store } = heldCreates();
    const { calls } = held;
    const testApp = await startTestApp({ overrides: { store } });
    try {
      const socket = await openRawSocket(await testApp.app.listen({ host: '127.0.0.1', port: 0 }));
      socket.write(request('POST', '/plants', '{"id":1,"name":"Slow"}') + request('DELETE', '/plants/1') + request('GET', '/plants/1'));
      while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      socket.socket.destroy();
      await socket.closed;
      held.release();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(calls).toStrictEqual(['create Slow']);
    } finally {
      await testApp.close();
    }
  });
});

describe('more pipelined requests than MAX_PIPELINED_REQUESTS', () => {
  it('the requests before the limit are answered in order, the first beyond it refused, none after it runs', async () => {
    const { held, store } = heldCreates();
    const { calls } = held;
    const testApp = await startTestApp({ env: { MAX_PIPELINED_REQUESTS: '2' }, overrides: { store } });
    try {
      const socket = await openRawSocket(await testApp.app.listen({ host: '127.0.0.1', port: 0 }));
      // The create holds the connection while the reads pile up behind it.
      socket.write(
        request('POST', '/plants', '{"id":1,"name":"Held"}') + [2, 3, 4, 5, 6].map((id) => request('GET', `/plants/${id}`)).join(''),
      );
      while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // Longer than any grace a closing connection might give: the create may wait as long for MongoDB.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      held.release();
      await socket.closed;
      const answers = splitResponses(socket.received());
      expect(answers.map((answer) => answer.status)).toStrictEqual([200, 200, 200, 400]);
      expect(JSON.parse(answers[3]?.body ?? '')).toStrictEqual({
        error: 400,
        message: 'more than 2 pipelined requests were waiting on this connection: it is closed',
      });
      expect(answers[3]?.headers.connection).toBe('close');
      expect(calls).toStrictEqual(['create Held', 'get 2', 'get 3']);
    } finally {
      await testApp.close();
    }
  });
});
