import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openRawSocket, parseResponse } from '../helpers/raw-socket.js';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../schemas/body-limit.js';
import { TEST_TOKEN, useListeningTestApp } from '../helpers/app.js';

/**
 * JSON bodies are read by server/http/body-text.ts, on REST routes and /trpc alike. A body that
 * arrives in one piece is decoded where it lies; one that arrives in several is put together
 * first. These send bodies over a real socket in pieces, with pauses between them, so the
 * server reads them in several socket reads, and check they are read exactly and strictly.
 */
const listening = useListeningTestApp();
const routes = ['/plants', '/trpc/createPlant'];

let nextId = 7_000_000 + Math.floor(Math.random() * 1_000_000);

/** Sends `pieces` as one request with a pause between them, and answers the status and body of the response. */
async function sendInPieces(path: string, pieces: Buffer[], framing: 'content-length' | 'chunked') {
  const socket = await openRawSocket(listening.url);
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const headers = [
    `POST ${path} HTTP/1.1`,
    'host: localhost',
    'content-type: application/json',
    `authorization: Bearer ${TEST_TOKEN}`,
    'connection: close',
  ];
  headers.push(framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${length}`);
  socket.write(`${headers.join('\r\n')}\r\n\r\n`);
  for (const piece of pieces) {
    await sleep(30);
    socket.write(
      framing === 'chunked' ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece,
    );
  }
  if (framing === 'chunked') socket.write('0\r\n\r\n');
  const { data } = await socket.closed;
  // The socket helper keeps bytes as latin1 text; the answer is UTF-8.
  return parseResponse(Buffer.from(data, 'latin1').toString('utf8'));
}

/** The bytes of `text` cut at the given byte offsets. */
function cut(text: string, ...offsets: number[]): Buffer[] {
  const bytes = Buffer.from(text);
  return [0, ...offsets].map((start, index) => bytes.subarray(start, offsets[index] ?? bytes.length));
}

describe('a JSON body that arrives in pieces', () => {
  // "Fern 🌿" ends in a 4-byte character: the cuts fall inside it and inside the id.
  const name = 'Fern 🌿 ünd';
  for (const framing of ['content-length', 'chunked'] as const) {
    it.each(routes)(`is read exactly (${framing}) on %s`, async (path) => {
      const id = nextId++;
      const text = `{"id":${id},"name":"${name}"}`;
      const emoji = Buffer.from(text).indexOf(Buffer.from('🌿'));
      const { status, body } = await sendInPieces(path, cut(text, 4, emoji + 1, emoji + 3), framing);
      expect(status).toBe(200);
      expect(path === '/plants' ? body : (body as { result: { data: unknown } }).result.data).toEqual({ name });
    });
  }

  it.each(routes)('with a byte that is not UTF-8 is refused with 400 on %s', async (path) => {
    const bytes = Buffer.from(`{"id":${nextId++},"name":"Fern X"}`);
    bytes[bytes.indexOf('X')] = 0xff;
    const { status, body } = await sendInPieces(path, [bytes.subarray(0, 10), bytes.subarray(10)], 'content-length');
    expect(status).toBe(400);
    const message = path === '/plants' ? (body as { message: string }).message : (body as { error: { message: string } }).error.message;
    expect(message).toBe('the request body is not valid UTF-8');
  });

  it.each(routes)('over the body limit without a Content-Length is refused with 413 on %s', async (path) => {
    const text = `{"id":${nextId++},"name":"${'x'.repeat(DEFAULT_BODY_LIMIT_BYTES)}"}`;
    const { status } = await sendInPieces(path, cut(text, 5000, 10_000, 15_000), 'chunked');
    expect(status).toBe(413);
  });
});
