import { describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { authHeaders, testConfig } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';
import { openRawSocket, parseResponse, postHead } from '../helpers/raw-socket.js';

describe('health probes', () => {
  it('/healthz and /readyz answer 200 while MongoDB answers', async () => {
    const app = await buildApp(testConfig());
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toStrictEqual({ status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toStrictEqual({ status: 'ready' });
    } finally {
      await app.close();
    }
  });

  it('/readyz answers 503 with an Error body and Retry-After within MONGODB_TIMEOUT_MS while MongoDB does not, and /healthz stays 200', async () => {
    const app = await buildApp(testConfig({ MONGODB_URI: 'mongodb://127.0.0.1:9/plantstore', MONGODB_TIMEOUT_MS: '300' }));
    try {
      await app.ready();
      const started = performance.now();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(performance.now() - started).toBeLessThan(300 + 500);
      expect(ready.statusCode).toBe(503);
      expect(ready.headers['retry-after']).toBe('1');
      expect(ready.json()).toStrictEqual({ error: 503, message: 'not ready: the plant database does not answer' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('/readyz answers 503 saying why, and the log names the variables, when MongoDB refuses the write concern itself', async () => {
    const logs = captureLogs();
    // As many members as a replica set can have: refused by a standalone and by any set of fewer members.
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info', MONGODB_WRITE_CONCERN: '50' }), { logStream: logs.stream });
    try {
      await app.ready();
      const refusal = /^MongoDB refuses the write concern \(w: 50, j: true\): .+/;
      await expect
        .poll(async () => (await app.inject({ method: 'GET', url: '/readyz' })).json<{ message: string }>(), { timeout: 10_000 })
        .toStrictEqual({
          error: 503,
          message: expect.stringMatching(/^not ready: MongoDB refuses the write concern \(w: 50, j: true\): /) as unknown,
        });
      expect(logs.lines().filter((line) => refusal.test(String(line.msg)))).toMatchObject([
        {
          level: 50,
          msg: expect.stringMatching(/until MONGODB_WRITE_CONCERN and MONGODB_JOURNAL ask what this deployment can do$/) as unknown,
        },
      ]);
    } finally {
      await app.close();
    }
  });

  it('/healthz answers 503 once the event loop stalled for over a second since the previous probe, and to the next probe too', async () => {
    const app = await buildApp(testConfig());
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const blockedUntil = performance.now() + 1_300;
      while (performance.now() < blockedUntil) {
        // A handler that holds the event loop.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stalled = await app.inject({ method: 'GET', url: '/healthz' });
      expect(stalled.statusCode).toBe(503);
      expect(stalled.json()).toStrictEqual({
        error: 503,
        message: expect.stringMatching(/^not healthy: the event loop stalled for \d+ ms$/) as unknown,
      });
      expect(Number(/(\d+) ms/.exec(stalled.json<{ message: string }>().message)?.[1])).toBeGreaterThan(1_000);
      // The signal holds for a while: a stranger's probe cannot take it from the orchestrator's.
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(503);
    } finally {
      await app.close();
    }
  });

  it('once the service is shutting down, /readyz answers 503 and /healthz 200, each with Connection: close; no probe logs a warning', async () => {
    const logs = captureLogs();
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), { logStream: logs.stream });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const readiness = await openRawSocket(url);
    const liveness = await openRawSocket(url);
    const held = await openRawSocket(url);
    // A request in flight holds the close open while the probes ask on their open connections.
    held.write(postHead('/plants', 100, authHeaders()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    readiness.write('GET /readyz HTTP/1.1\r\nhost: localhost\r\n\r\n');
    liveness.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n');
    const [ready, live] = await Promise.all([readiness.closed, liveness.closed]);
    held.socket.destroy();
    await closing;
    expect(parseResponse(ready.data)).toStrictEqual({
      status: 503,
      body: { error: 503, message: 'not ready: the service is shutting down' },
    });
    expect(parseResponse(live.data)).toStrictEqual({ status: 200, body: { status: 'ok' } });
    for (const { data } of [ready, live]) expect(data.toLowerCase()).toContain('\r\nconnection: close\r\n');
    // Each probe has its request line; the shutdown is expected, so none warns.
    expect(logs.lines().filter((line) => line.path === '/readyz' && line.status === 503)).toHaveLength(1);
    expect(logs.lines().filter((line) => Number(line.level) >= 40)).toStrictEqual([]);
  });
});
