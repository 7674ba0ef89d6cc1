// A list whose client has gone stops: the store's signal aborts when the connection closes, and only then.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredPlant } from '../../schemas/plant.js';
import { startTestApp, TEST_TOKEN, type TestApp } from '../helpers/app.js';
import { splitResponses } from '../helpers/http-responses.js';
import { openRawSocket, type RawSocket } from '../helpers/raw-socket.js';
import { scriptedStore } from '../helpers/scripted-store.js';

const PAGE: StoredPlant[] = [{ id: 1, name: 'Monstera' }];

/** Each list call's signal, and a way to hold the call until its signal aborts. */
const calls: { signal: AbortSignal | undefined; abortedAtCall: boolean | undefined }[] = [];
let holdUntilAborted = false;
const store = scriptedStore({
  list: async ({ signal }) => {
    calls.push({ signal, abortedAtCall: signal?.aborted });
    if (holdUntilAborted && signal) {
      await new Promise((resolve) => {
        signal.addEventListener('abort', resolve, { once: true });
      });
    }
    return { plants: PAGE.map((plant) => ({ ...plant })), more: false };
  },
});

let testApp: TestApp;
let url: string;
beforeAll(async () => {
  testApp = await startTestApp({ overrides: { store } });
  url = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => testApp.close());

const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${TEST_TOKEN}\r\n\r\n`;

/** Polls until `condition` holds, for 5 s at most. */
const until = (condition: () => boolean) =>
  vi.waitFor(
    () => {
      expect(condition()).toBe(true);
    },
    { timeout: 5_000, interval: 5 },
  );

describe.each([
  ['REST', '/plants?limit=5'],
  ['/trpc', '/trpc/listPlants?input=%7B%22limit%22%3A5%7D'],
])('a list over %s', (_name, path) => {
  it('has its signal aborted when the client closes the connection before the answer', async () => {
    holdUntilAborted = true;
    calls.length = 0;
    const client: RawSocket = await openRawSocket(url);
    client.write(get(path));
    await until(() => calls.length === 1);
    const { signal } = calls[0] ?? {};
    expect(signal?.aborted).toBe(false);
    client.socket.destroy();
    await until(() => signal?.aborted === true);
    expect(client.received()).toBe('');
  });

  it('keeps its signal unaborted while the connection lives on, answer after answer', async () => {
    holdUntilAborted = false;
    calls.length = 0;
    const client = await openRawSocket(url);
    for (let answered = 1; answered <= 3; answered++) {
      client.write(get(path));
      await until(() => splitResponses(client.received()).length === answered);
    }
    expect(splitResponses(client.received()).map((answer) => answer.status)).toStrictEqual([200, 200, 200]);
    expect(calls.map(({ abortedAtCall }) => abortedAtCall)).toStrictEqual([false, false, false]);
    client.socket.destroy();
    await client.closed;
  });
});
