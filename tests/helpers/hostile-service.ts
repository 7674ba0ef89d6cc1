/**
 * The built service as an attacker meets it: a separate process (`node dist/server/main.js`) on a
 * database of its own, every log line at trace level kept, talked to either through a keep-alive
 * HTTP agent (`send`) or over raw sockets (`exchange`, `pipeline`) so that every byte of a request
 * is the test's own. Every answer is kept, so that a batch can be checked for what must never
 * happen. Process tests do not inherit FAST_PATH: a suite starts one process per mode.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { MongoClient, type Collection } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { int64Json } from '../../schemas/int64-json.js';
import { testMongoUri } from './app.js';
import { splitResponses, type RawResponse } from './http-responses.js';
import { httpPages, pageThrough, type ListedPlant } from './plant-pages.js';
import { startService } from '@plant-store/service-launcher';

export const HOSTILE_TOKEN = 'hostile-Token-7Qm2Xv9Lp4';
export const FAST_PATH_MODES = ['on', 'off'] as const;
export type FastPathMode = (typeof FAST_PATH_MODES)[number];

export interface Answer {
  status: number;
  body: string;
}

export interface Sent {
  method: string;
  path: string;
  body?: string | undefined;
  headers?: Record<string, string>;
}

/** A JSON `Content-Type` and the token, the headers of most hostile requests: the parser must run. */
export const JSON_WITH_TOKEN = { 'content-type': 'application/json', authorization: `Bearer ${HOSTILE_TOKEN}` };

/** A service process under attack, and what it answered. */
export interface HostileService {
  readonly url: string;
  /** The process's id. */
  readonly pid: number;
  /** The service's plants, read through a connection of the test's own. */
  readonly plants: Collection;
  /** Sends one request through the keep-alive agent; throws (with the process's last output) when there is no answer. */
  send(sent: Sent): Promise<Answer>;
  /** Sends `request` as it is on a connection of its own and reads until the service closes it. */
  exchange(request: string | Buffer, options?: { head?: boolean }): Promise<RawResponse>;
  /** Writes `requests` back to back on one connection and reads their answers. */
  pipeline(requests: readonly string[], headRequests?: ReadonlySet<number>): Promise<RawResponse[]>;
  /**
   * What must hold after every batch of hostile requests: the process is alive and answers
   * `/healthz`, no answer so far was a 5xx, none that `send` got was a refusal in another shape
   * than the route's error shape, and `storedIds` (when given) is exactly what the plants
   * collection holds.
   */
  checkAfterBatch(storedIds?: readonly number[]): Promise<void>;
  /** Every plant stored, as `GET /plants` pages through them (ids exact). */
  storedPlants(): Promise<ListedPlant[]>;
  /** Everything the process has written to stdout and stderr: its logs. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the built service (`npm run build` first) with `env` added to the defaults. */
export async function startHostileService(env: Record<string, string> = {}): Promise<HostileService> {
  const mongoUri = testMongoUri();
  const service = await startService({
    MONGODB_URI: mongoUri,
    API_TOKENS: HOSTILE_TOKEN,
    LOG_LEVEL: 'trace',
    REQUEST_TIMEOUT_MS: '3000',
    ...env,
  });
  const client = await new MongoClient(mongoUri).connect();
  const plants = client.db().collection('plants');
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const faults: string[] = [];
  const rawStatuses: number[] = [];

  const send = async (sent: Sent): Promise<Answer> => {
    const answer = await exchangeOverAgent(service.url, agent, sent).catch((error: unknown) => {
      throw new Error(`no answer to ${describeRequest(sent)}: ${String(error)}\nservice output ends:\n${service.output().slice(-3_000)}`);
    });
    const fault = faultOf(sent, answer);
    if (fault !== undefined) faults.push(`${fault}: ${describeRequest(sent)} -> ${answer.status} ${answer.body.slice(0, 300)}`);
    return answer;
  };

  const read = async (data: string | Buffer, count: number, headRequests: ReadonlySet<number>): Promise<RawResponse[]> => {
    const responses = await readRaw(service.url, data, count, headRequests);
    rawStatuses.push(...responses.map((response) => response.status));
    return responses;
  };

  return {
    url: service.url,
    pid: service.pid,
    plants,
    send,
    async exchange(request, { head = false } = {}) {
      const [response] = await read(request, 1, head ? new Set([0]) : new Set());
      if (response === undefined) throw new Error(`no answer to ${JSON.stringify(request.toString().slice(0, 200))}`);
      return response;
    },
    pipeline: (requests, headRequests = new Set()) => read(requests.join(''), requests.length, headRequests),
    async checkAfterBatch(storedIds) {
      expect(service.child.exitCode, service.output().slice(-3_000)).toBeNull();
      const health = await exchangeOverAgent(service.url, agent, { method: 'GET', path: '/healthz' });
      expect(health.status).toBe(200);
      // 501 and 505 are no failures: they answer a method, a transfer coding or an HTTP version nothing here implements.
      expect(rawStatuses.filter((status) => status >= 500 && status !== 501 && status !== 505)).toStrictEqual([]);
      expect(faults).toStrictEqual([]);
      if (storedIds) {
        const ids = (await plants.find({}, { projection: { _id: 1 } }).toArray()).map((document) => Number(document._id));
        expect(ids.sort((a, b) => a - b)).toStrictEqual([...storedIds].sort((a, b) => a - b));
      }
    },
    async storedPlants() {
      return (await pageThrough(httpPages(service.url, HOSTILE_TOKEN, agent), 1000)).plants;
    },
    output: () => service.output(),
    async stop() {
      agent.destroy();
      await service.stop('SIGTERM');
      await client.db().dropDatabase();
      await client.close();
    },
  };
}

/**
 * `beforeAll`/`afterAll` for one service process of the calling `describe`, with `env` added to
 * the defaults (a function when it is known only once earlier `beforeAll` hooks have run).
 */
export function useHostileService(env: Record<string, string> | (() => Record<string, string>)): HostileService {
  let service: HostileService | undefined;
  beforeAll(async () => {
    service = await startHostileService(typeof env === 'function' ? env() : env);
  });
  afterAll(async () => {
    await service?.stop();
  });
  const running = () => {
    if (!service) throw new Error('useHostileService: used outside a test');
    return service;
  };
  return {
    get url() {
      return running().url;
    },
    get pid() {
      return running().pid;
    },
    get plants() {
      return running().plants;
    },
    send: (sent) => running().send(sent),
    exchange: (raw, options) => running().exchange(raw, options),
    pipeline: (requests, headRequests) => running().pipeline(requests, headRequests),
    checkAfterBatch: (storedIds) => running().checkAfterBatch(storedIds),
    storedPlants: () => running().storedPlants(),
    output: () => running().output(),
    stop: () => running().stop(),
  };
}

/** What is wrong with an answer whatever the request: a 5xx, or a refusal not in the route's error shape. */
function faultOf(sent: Sent, { status, body }: Answer): string | undefined {
  if (status >= 500) return '5xx';
  if (status < 400) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'a refusal that is not JSON';
  }
  const trpc = sent.path.startsWith('/trpc/');
  return (trpc ? isTrpcError(parsed, status) : isRestError(parsed, status))
    ? undefined
    : trpc
      ? 'not a tRPC error envelope'
      : 'not the Error shape';
}

function isRestError(body: unknown, status: number): boolean {
  const { error, message, ...rest } = (body ?? {}) as Record<string, unknown>;
  return error === status && typeof message === 'string' && message !== '' && Object.keys(rest).length === 0;
}

/** tRPC's error envelope; a batch answers an array of them. */
function isTrpcError(body: unknown, status: number): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every((item) => isTrpcError(item, status));
  const error = (body as { error?: { message?: unknown; data?: { httpStatus?: unknown } } } | null)?.error;
  return typeof error?.message === 'string' && error.data?.httpStatus === status;
}

/** The message of a refusal, REST or tRPC (a batch's first). */
export function messageOf({ body }: Answer): string | undefined {
  const answer = JSON.parse(body) as unknown;
  const parsed = (Array.isArray(answer) ? answer[0] : answer) as { message?: unknown; error?: { message?: unknown } };
  const message = typeof parsed.error === 'object' ? parsed.error.message : parsed.message;
  return typeof message === 'string' ? message : undefined;
}

/** A tRPC query's path with its input in the URL, as tRPC clients send it. */
export const trpcQuery = (procedure: string, input: string) => `/trpc/${procedure}?input=${encodeURIComponent(input)}`;

/** Reads a stored plant back by GET /plants/{id} and as tRPC's getPlant: both answers, as text. */
export async function readBack(service: HostileService, id: bigint): Promise<{ rest: Answer; trpc: Answer }> {
  const headers = { authorization: `Bearer ${HOSTILE_TOKEN}` };
  const rest = await service.send({ method: 'GET', path: `/plants/${id}`, headers });
  const trpc = await service.send({ method: 'GET', path: trpcQuery('getPlant', `{"id":${id}}`), headers });
  return { rest, trpc };
}

/** A plant answer's fields, ids exact. */
export const exactJson = (text: string) => int64Json.parse(text) as Record<string, unknown>;

/** A request as written on the wire: the request line, `headers` in order, a body; `Connection: close` unless headers say otherwise. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'host: localhost'];
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding'))
    lines.push(`content-length: ${Buffer.byteLength(body)}`);
  if (!names.includes('connection')) lines.push('connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** Every form in which `secret` could show in a log line: as text, percent-encoded, base64 (alone and as Basic credentials), hex, and the decimal byte list pino writes for a Buffer. */
export function leakedForms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [
    secret,
    encodeURIComponent(secret),
    bytes.toString('base64'),
    Buffer.from(`user:${secret}`).toString('base64'),
    bytes.toString('hex'),
    [...bytes].join(','),
  ];
}

/** The secrets of `secrets` that show in `output`, in any form of `leakedForms`. */
export function leaksIn(output: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => leakedForms(secret).some((form) => output.includes(form)));
}

function describeRequest({ method, path, body }: Sent): string {
  const shown = (text: string) => (text.length > 200 ? `${text.slice(0, 120)}…(${text.length} chars)…${text.slice(-40)}` : text);
  return `${method} ${shown(path)}${body === undefined ? '' : ` ${shown(body)}`}`;
}

function exchangeOverAgent(baseUrl: string, agent: Agent, { method, path, body, headers = {} }: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${baseUrl}${path}`, { method, agent, headers: { ...length, ...headers }, timeout: 15_000 });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes `data` on a connection of its own and reads until `count` responses came, the service closed it, or 10 s passed. */
async function readRaw(baseUrl: string, data: string | Buffer, count: number, headRequests: ReadonlySet<number>): Promise<RawResponse[]> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const connection = { closed: false };
  socket.on('error', () => undefined);
  socket.on('close', () => (connection.closed = true));
  socket.write(data);
  const deadline = Date.now() + 10_000;
  while (!connection.closed && splitResponses(received, headRequests).length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
  socket.destroy();
  return splitResponses(received, headRequests);
}
