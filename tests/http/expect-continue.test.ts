import { describe, expect, it, vi } from 'vitest';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';
import { openRawSocket } from '../helpers/raw-socket.js';

// The held `100 Continue` must follow whatever reads the body, or the client waits for the request timeout; a request
// refused before its body is read gets the refusal instead, and no invitation to send a body nothing will read.
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
  it('a method no route takes gets its 405 or 404 at once, without a 100 for a body nothing reads', async () => {
    expect(await statusesFor('OPTIONS', '/plants', 'text/plain', 'Fern')).toStrictEqual([405]);
    expect(await statusesFor('OPTIONS', '/nowhere', 'text/plain', 'Fern')).toStrictEqual([404]);
    expect(await statusesFor('QUERY', '/plants', 'application/json', '{}')).toStrictEqual([405]);
  });

  it('a body read by the service goes on to its answer', async () => {
    expect(await statusesFor('POST', '/plants', 'application/json', '{"id":1,"name":"Fern"}')).toStrictEqual([100, 200]);
  });
});
