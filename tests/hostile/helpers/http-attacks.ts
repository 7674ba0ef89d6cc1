/**
 * The built service as an attacker meets it: a separate process (`node dist/server/main.js`),
 * MongoDB from MONGODB_URI, every log line at trace level kept, talked to over raw sockets so
 * that every byte of a request is the test's own.
 */
import { connect } from 'node:net';
import { MongoClient, type Collection } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { testMongoUri } from '../../helpers/app.js';
import { startService, type ServiceProcess } from '../../helpers/service-process.js';
import { splitResponses, type RawResponse } from './http-responses.js';

export const HOSTILE_TOKEN = 'hostile-Token-7Qm2Xv9Lp4';

export interface HostileService {
  readonly url: string;
  /** The service's plants, read through a connection of the test's own. */
  readonly plants: Collection;
  /** Sends `request` as it is on a connection of its own and reads until the service closes it. */
  exchange(request: string | Buffer, options?: { head?: boolean }): Promise<RawResponse>;
  /** Writes `requests` back to back on one connection and reads their answers. */
  pipeline(requests: readonly string[], headRequests?: ReadonlySet<number>): Promise<RawResponse[]>;
  /**
   * What must hold after every batch of hostile requests: the process is alive and answers
   * `/healthz`, no answer so far was a 5xx, and `storedIds` (when given) is exactly what the
   * plants collection holds.
   */
  checkAfterBatch(storedIds?: readonly number[]): Promise<void>;
  /** Everything the process has written to stdout and stderr: its logs. */
  output(): string;
}

/**
 * `beforeAll`/`afterAll` for one service process of the calling `describe`, with `env` added to
 * the defaults (a function when it is known only once earlier `beforeAll` hooks have run).
 */
export function useHostileService(env: Record<string, string> | (() => Record<string, string>)): HostileService {
  const mongoUri = testMongoUri();
  let service: ServiceProcess | undefined;
  let client: MongoClient | undefined;
  const statuses: number[] = [];
  beforeAll(async () => {
    const extra = typeof env === 'function' ? env() : env;
    service = await startService({ MONGODB_URI: mongoUri, API_TOKENS: HOSTILE_TOKEN, LOG_LEVEL: 'trace', REQUEST_TIMEOUT_MS: '3000', ...extra });
    client = await new MongoClient(mongoUri).connect();
  });
  afterAll(async () => {
    await service?.stop('SIGTERM');
    await client?.db().dropDatabase();
    await client?.close();
  });
  const running = () => {
    if (!service) throw new Error('useHostileService: used outside a test');
    return service;
  };

  const read = async (data: string | Buffer, count: number, headRequests: ReadonlySet<number>): Promise<RawResponse[]> => {
    const { hostname, port } = new URL(running().url);
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        resolve();
      });
    });
    socket.write(data);
    const deadline = Date.now() + 10_000;
    const connection = { closed: false };
    void closed.then(() => (connection.closed = true));
    while (!connection.closed && splitResponses(received, headRequests).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
    const responses = splitResponses(received, headRequests);
    statuses.push(...responses.map((response) => response.status));
    return responses;
  };

  return {
    get url() {
      return running().url;
    },
    get plants() {
      if (!client) throw new Error('useHostileService: used outside a test');
      return client.db().collection('plants');
    },
    async exchange(request, { head = false } = {}) {
      const [response] = await read(request, 1, head ? new Set([0]) : new Set());
      if (response === undefined) throw new Error(`no answer to ${JSON.stringify(request.toString().slice(0, 200))}`);
      return response;
    },
    pipeline: (requests, headRequests = new Set()) => read(requests.join(''), requests.length, headRequests),
    async checkAfterBatch(storedIds) {
      const health = await this.exchange('GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n');
      expect(health.status).toBe(200);
      expect(statuses.filter((status) => status >= 500)).toStrictEqual([]);
      expect(running().child.exitCode).toBeNull();
      if (storedIds) {
        const ids = (await this.plants.find({}, { projection: { _id: 1 } }).toArray()).map((document) => Number(document._id));
        expect(ids.sort((a, b) => a - b)).toStrictEqual([...storedIds].sort((a, b) => a - b));
      }
    },
    output: () => running().output(),
  };
}

/** A request as written on the wire: the request line, `headers` in order, a body; `Connection: close` unless headers say otherwise. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'host: localhost'];
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding')) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  if (!names.includes('connection')) lines.push('connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** Every form in which `secret` could show in a log line: as text, percent-encoded, base64 (alone and as Basic credentials), hex, and the decimal byte list pino writes for a Buffer. */
export function leakedForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, encodeURIComponent(secret), bytes.toString('base64'), Buffer.from(`user:${secret}`).toString('base64'), bytes.toString('hex'), [...bytes].join(',')];
}

/** The secrets of `secrets` that show in `output`, in any form of `leakedForms`. */
export function leaksIn(output: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => leakedForms(secret).some((form) => output.includes(form)));
}
