// Graceful shutdown of the real service process under load: SIGTERM while keep-alive clients keep
// creating plants, as a rolling deploy does to each instance.
import { Agent } from 'node:http';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { postJson, type PostOutcome } from '../helpers/http-post.js';
import { startService } from '@plant-store/service-launcher';
import { testMongoUri } from '../helpers/app.js';
import { splitResponses, type RawResponse } from '../helpers/http-responses.js';
import { openRawSocket, parseResponse, postHead, type RawSocket } from '../helpers/raw-socket.js';

const TOKEN = 'shutdown-test-token';
const WORKERS = 64;
const SLOW_REQUESTS = 6;
const RUNS = 3;

const mongoUri = testMongoUri();
afterAll(async () => {
  const client = await new MongoClient(mongoUri).connect();
  await client.db().dropDatabase();
  await client.close();
});

interface Answer {
  id: number;
  outcome: PostOutcome;
  /** Whether the request was sent after SIGTERM. */
  afterSignal: boolean;
}

async function storedIds(): Promise<Set<number>> {
  const client = await new MongoClient(mongoUri).connect();
  try {
    const stored = await client.db(new ConnectionString(mongoUri).pathname.slice(1)).collection('plants').distinct('_id');
    return new Set(stored.map(Number));
  } finally {
    await client.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SIGTERM under load', () => {
  for (let run = 1; run <= RUNS; run++) {
    it(`answers every request it read as usual (never 5xx), refuses new connections, exits 0 within 10 s, loses nothing (run ${run} of ${RUNS})`, async () => {
      const service = await startService({ MONGODB_URI: mongoUri, API_TOKENS: TOKEN, LOG_LEVEL: 'warn' });
      let signalled = false;
      let exited = false;
      const answers: Answer[] = [];
      // Ids of this run only: the runs share a database.
      let nextId = run * 10_000_000;

      // Clients that keep creating plants on keep-alive connections until the process is gone.
      const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
      const worker = async () => {
        while (!exited) {
          const id = nextId++;
          const afterSignal = signalled;
          const outcome = await postJson(`${service.url}/plants`, { id, name: `plant ${id}` }, TOKEN, { agent, timeoutMs: 15_000 });
          answers.push({ id, outcome, afterSignal });
          if (outcome.status === undefined && signalled) await sleep(20);
        }
      };
      const workers = Array.from({ length: WORKERS }, worker);

      // Requests surely read and in flight at the signal: the service has answered their headers
      // with 100 Continue and has part of the body; the rest follows the signal.
      const slow = await Promise.all(
        Array.from({ length: SLOW_REQUESTS }, async (_, index) => {
          const id = run * 10_000_000 + 9_000_000 + index;
          const body = JSON.stringify({ id, name: `slow ${id}` });
          const socket = await openRawSocket(service.url);
          socket.write(postHead('/plants', Buffer.byteLength(body), { authorization: `Bearer ${TOKEN}`, expect: '100-continue' }));
          await vi.waitFor(
            () => {
              expect(socket.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
            },
            { timeout: 10_000, interval: 10 },
          );
          socket.write(body.slice(0, 10));
          return { id, body, socket };
        }),
      );

      await sleep(400);
      signalled = true;
      // Requests started before this line have had their bytes written by the time the signal lands.
      await sleep(10);
      const signalAt = performance.now();
      const exitCode = service.stop('SIGTERM');
      await sleep(300);
      for (const { body, socket } of slow) socket.write(body.slice(10));
      const slowRaw = await Promise.all(
        slow.map(async ({ socket }) => (await socket.closed).data.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')),
      );

      expect(await exitCode).toBe(0);
      const exitMs = performance.now() - signalAt;
      exited = true;
      await Promise.all(workers);
      agent.destroy();

      expect(exitMs).toBeLessThan(10_000);
      // Read before the signal, finished after it: answered as usual, and told the connection ends.
      for (const raw of slowRaw) {
        expect(parseResponse(raw)).toStrictEqual({ status: 200, body: { name: expect.stringMatching(/^slow /) as unknown } });
        expect(raw.toLowerCase()).toContain('\r\nconnection: close\r\n');
      }

      const before = answers.filter((answer) => !answer.afterSignal);
      const after = answers.filter((answer) => answer.afterSignal);
      expect(before.length).toBeGreaterThan(50);
      expect(before.filter(({ outcome }) => outcome.status !== 200)).toStrictEqual([]);
      // Every request the service answered, before the signal or after it, is a 200: no 503, no 5xx at all.
      const notOk = answers.filter(({ outcome }) => outcome.status !== undefined && outcome.status !== 200);
      expect(notOk.map(({ outcome }) => outcome)).toStrictEqual([]);
      // A request sent is answered or, once the listener is closed, its connection refused: no
      // connection busy with these clients is reset under a request.
      const unanswered = after.flatMap(({ outcome }) => (outcome.status === undefined ? [outcome.error] : []));
      expect(unanswered.length).toBeGreaterThan(0);
      expect(unanswered.filter((error) => error !== 'ECONNREFUSED')).toStrictEqual([]);

      const answeredOk = [
        ...answers.filter((answer) => answer.outcome.status === 200).map((answer) => answer.id),
        ...slow.map((request) => request.id),
      ];
      const stored = await storedIds();
      expect(answeredOk.filter((id) => !stored.has(id))).toStrictEqual([]);

      const counts: Record<string, number> = {};
      for (const { outcome } of after) {
        const key = outcome.status === undefined ? outcome.error : String(outcome.status);
        counts[key] = (counts[key] ?? 0) + 1;
      }
      console.log(
        `shutdown run ${run}: ${before.length} answered 200 before SIGTERM; after it ${JSON.stringify(counts)}; exit 0 in ${Math.round(exitMs)} ms`,
      );
    });
  }
});

const DELAY_MS = 1_500;

const getRequest = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`;

/** Sends `request` on `socket` and reads its one response. */
async function exchange(socket: RawSocket, request: string): Promise<RawResponse> {
  const before = socket.received().length;
  socket.write(request);
  let response: RawResponse | undefined;
  await vi.waitFor(
    () => {
      response = splitResponses(socket.received().slice(before))[0];
      expect(response).toBeDefined();
    },
    { timeout: 5_000, interval: 5 },
  );
  return response as RawResponse;
}

/** One request on a connection of its own. */
async function ask(url: string, request: string): Promise<RawResponse> {
  const socket = await openRawSocket(url);
  try {
    return await exchange(socket, request);
  } finally {
    socket.socket.destroy();
  }
}

/** The error code of connecting to `url`, or undefined when it connects. */
async function connectError(url: string): Promise<string | undefined> {
  try {
    (await openRawSocket(url)).socket.destroy();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe('SHUTDOWN_DELAY_MS', () => {
  it('on SIGTERM, /readyz answers 503 at once while every route serves on, keep-alive, for the delay; then the service closes as without it', async () => {
    const service = await startService({
      MONGODB_URI: mongoUri,
      API_TOKENS: TOKEN,
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: String(DELAY_MS),
    });
    expect((await ask(service.url, getRequest('/readyz'))).status).toBe(200);
    const kept = await openRawSocket(service.url);
    expect((await exchange(kept, getRequest('/healthz'))).status).toBe(200);

    const signalAt = performance.now();
    const exitCode = service.stop('SIGTERM');
    await sleep(100);
    const notReady = await ask(service.url, getRequest('/readyz'));
    expect(performance.now() - signalAt).toBeLessThan(DELAY_MS);
    expect({ status: notReady.status, body: JSON.parse(notReady.body) as unknown }).toStrictEqual({
      status: 503,
      body: { error: 503, message: 'not ready: the service is shutting down' },
    });

    // Within the delay: every other route answers as usual, on new connections and on one opened
    // before the signal, and keeps them open.
    const id = 424_242;
    const body = JSON.stringify({ id, name: 'delayed' });
    const created = await ask(service.url, postHead('/plants', Buffer.byteLength(body), { authorization: `Bearer ${TOKEN}` }) + body);
    const read = await exchange(kept, getRequest(`/plants/${id}`));
    const live = await ask(service.url, getRequest('/healthz'));
    expect(performance.now() - signalAt).toBeLessThan(DELAY_MS);
    expect([created.status, read.status, live.status]).toStrictEqual([200, 200, 200]);
    expect(JSON.parse(read.body)).toStrictEqual({ id, name: 'delayed' });
    for (const response of [created, read, live]) expect(response.headers.connection).not.toBe('close');

    // After it: new connections are refused, and the process exits 0.
    await vi.waitFor(
      async () => {
        expect(await connectError(service.url)).toBe('ECONNREFUSED');
      },
      { timeout: DELAY_MS + 10_000, interval: 20 },
    );
    expect(performance.now() - signalAt).toBeGreaterThanOrEqual(DELAY_MS);
    expect(await exitCode).toBe(0);
    expect(performance.now() - signalAt).toBeLessThan(DELAY_MS + 10_000);
    expect((await kept.closed).atMs - signalAt).toBeGreaterThanOrEqual(DELAY_MS);
  });
});
