import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

/** A TCP connection to the service written byte by byte, for requests no HTTP client would send. */
export interface RawSocket {
  socket: Socket;
  write(data: string | Buffer): void;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closes the connection, with what it sent and when. */
  closed: Promise<{ data: string; atMs: number }>;
}

export async function openRawSocket(url: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await once(socket, 'connect');
  let data = '';
  socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
  const closed = new Promise<{ data: string; atMs: number }>((resolve) => {
    // A reset counts as closed too: the point is that the server let go.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve({ data, atMs: performance.now() });
    });
  });
  return { socket, write: (chunk) => socket.write(chunk), received: () => data, closed };
}

/** The head of a POST with a JSON body of `length` bytes, ready for the body to follow. */
export function postHead(path: string, length: number, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: 'localhost', 'content-type': 'application/json', 'content-length': String(length), ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`;
}

/** Status and JSON body of the first response in `raw`. */
export function parseResponse(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return { status, body: text === '' ? undefined : JSON.parse(text) };
}
