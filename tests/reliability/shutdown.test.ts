// Graceful shutdown of the real service process under load: SIGTERM while requests are in flight.
import { Agent } from 'node:http';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson, type PostOutcome } from '../helpers/http-post.js';
import { startService } from '@plant-store/service-launcher';
import { testMongoUri } from '../helpers/app.js';
import { openRawSocket, parseResponse, postHead } from '../helpers/raw-socket.js';

const TOKEN = 'shutdown-test-token';
const WORKERS = 16;
const SLOW_REQUESTS = 6;

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

describe('SIGTERM under load', () => {
  it('finishes in-flight requests, refuses new work, exits 0 within 10 s, and loses no answered plant', async () => {
    const service = await startService({ MONGODB_URI: mongoUri, API_TOKENS: TOKEN, LOG_LEVEL: 'warn' });
    let signalled = false;
    let exited = false;
    const answers: Answer[] = [];
    let nextId = 1;

    // Clients that keep creating plants on keep-alive connections until the process is gone.
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const worker = async () => {
      while (!exited) {
        const id = nextId++;
        const afterSignal = signalled;
        const outcome = await postJson(`${service.url}/plants`, { id, name: `plant ${id}` }, TOKEN, { agent, timeoutMs: 15_000 });
        answers.push({ id, outcome, afterSignal });
        if (outcome.status !== 200 && signalled) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);

    // Requests surely in flight at the signal: headers and half the body sent before it, the rest after.
    const slow = await Promise.all(
      Array.from({ length: SLOW_REQUESTS }, async (_, index) => {
        const id = 1_000_000 + index;
        const body = JSON.stringify({ id, name: `slow ${id}` });
        const socket = await openRawSocket(service.url);
        socket.write(postHead('/plants', Buffer.byteLength(body), { authorization: `Bearer ${TOKEN}` }) + body.slice(0, 10));
        return { id, body, socket };
      }),
    );

    await new Promise((resolve) => setTimeout(resolve, 400));
    signalled = true;
    // Requests started before this line have had their bytes written by the time the signal lands.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const signalAt = performance.now();
    const exitCode = service.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { body, socket } of slow) socket.write(body.slice(10));
    const slowAnswers = await Promise.all(slow.map(async ({ socket }) => parseResponse((await socket.closed).data)));

    expect(await exitCode).toBe(0);
    const exitMs = performance.now() - signalAt;
    exited = true;
    await Promise.all(workers);
    agent.destroy();

    expect(exitMs).toBeLessThan(10_000);
    for (const answer of slowAnswers) expect(answer).toStrictEqual({ status: 200, body: { name: expect.stringMatching(/^slow /) as unknown } });

    const before = answers.filter((answer) => !answer.afterSignal);
    expect(before.length).toBeGreaterThan(50);
    expect(before.every((answer) => answer.outcome.status === 200)).toBe(true);
    // After the signal: answered normally, or refused (503 in the Error shape, or the connection refused or closed).
    for (const { outcome } of answers.filter((answer) => answer.afterSignal)) {
      if (outcome.status === undefined) expect(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']).toContain(outcome.error);
      else if (outcome.status !== 200) {
        expect(outcome.status).toBe(503);
        expect(JSON.parse(outcome.body)).toStrictEqual({ error: 503, message: expect.any(String) as unknown });
      }
    }
    expect(answers.some((answer) => answer.afterSignal && answer.outcome.status === undefined && answer.outcome.error === 'ECONNREFUSED')).toBe(true);

    const answeredOk = [...answers.filter((answer) => answer.outcome.status === 200).map((answer) => answer.id), ...slow.map((request) => request.id)];
    const client = await new MongoClient(mongoUri).connect();
    try {
      const stored = await client.db(new ConnectionString(mongoUri).pathname.slice(1)).collection('plants').distinct('_id');
      const storedIds = new Set(stored.map(Number));
      expect(answeredOk.filter((id) => !storedIds.has(id))).toStrictEqual([]);
    } finally {
      await client.close();
    }
    const after: Record<string, number> = {};
    for (const { outcome } of answers.filter((answer) => answer.afterSignal)) {
      const key = outcome.status === undefined ? outcome.error : String(outcome.status);
      after[key] = (after[key] ?? 0) + 1;
    }
    console.log(`shutdown: ${before.length} answered 200 before SIGTERM; after it ${JSON.stringify(after)}; exit 0 in ${Math.round(exitMs)} ms`);
  });
});
