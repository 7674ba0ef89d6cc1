import { describe, expect, it, vi } from 'vitest';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';
import { openRawSocket } from '../helpers/raw-socket.js';

// Without CORS no hook refuses an OPTIONS: it reaches the not-found handler, and Fastify's own text parser reads its
// body. The held `100 Continue` must follow whatever reads, or the client waits for the request timeout.
const service = useListeningTestApp();

/** The statuses the service sends to a head with `Expect: 100-continue`, the body sent once the 100 comes. */
async function statusesFor(method: string, path: string, contentType: string, body: string): Promise<number[]> {
  const socket = await openRawSocket(service.url);
  const head = [
    `${method} ${path} HTTP/1.1`,
    'host: localhost',
    `authorization: Bearer ${TEST_TOKEN}`,
    `content-type: ${contentType}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'expect: 100-continue',
    'connection: close',
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  await vi.waitFor(
    () => {
      expect(socket.received()).toMatch(/^HTTP\/1\.1 \d{3} /);
    },
    { timeout: 3_000, interval: 10 },
  );
  if (socket.received().startsWith('HTTP/1.1 100 ')) socket.write(body);
  const { data } = await socket.closed;
  return [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
}

describe('Expect: 100-continue, whatever reads the body', () => {
  it('an OPTIONS with a text body gets its 100 and then the 405, not a wait for the request timeout', async () => {
    expect(await statusesFor('OPTIONS', '/plants', 'text/plain', 'Fern')).toStrictEqual([100, 405]);
    expect(await statusesFor('OPTIONS', '/nowhere', 'text/plain', 'Fern')).toStrictEqual([100, 404]);
  });

  it('a body read by the service goes on to its answer', async () => {
    expect(await statusesFor('POST', '/plants', 'application/json', '{"id":1,"name":"Fern"}')).toStrictEqual([100, 200]);
  });
});
