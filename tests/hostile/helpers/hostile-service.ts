// The built service as a separate process, for the hostile-input suites: one process per mode
// (process tests do not inherit FAST_PATH), each request over a real socket, every answer kept
// so that a batch can be checked for what must never happen.
import { Agent, request } from 'node:http';
import { MongoClient } from 'mongodb';
import { expect } from 'vitest';
import { int64Json } from '../../../schemas/int64-json.js';
import { testMongoUri } from '../../helpers/app.js';
import { httpPages, pageThrough, type ListedPlant } from '../../helpers/plant-pages.js';
import { startService, type ServiceProcess } from '../../helpers/service-process.js';

export const TOKEN = 'hostile-token-Hq4Lp9';
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
export const JSON_WITH_TOKEN = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };

/** A service process under attack, and what it answered. */
export interface HostileService {
  readonly mode: FastPathMode;
  readonly process: ServiceProcess;
  /** Sends one request; throws (with the process's last output) when there is no answer. */
  send(sent: Sent): Promise<Answer>;
  /**
   * The checks after each batch: the process still runs and answers `/healthz`, and no request
   * so far was answered 5xx or in another shape than the route's error shape.
   */
  expectUnharmed(): Promise<void>;
  /** Every plant stored, as `GET /plants` pages through them (ids exact). */
  storedPlants(): Promise<ListedPlant[]>;
  stop(): Promise<void>;
}

/** Starts the built service (`npm run build` first) on a database of its own, logging at trace level. */
export async function startHostileService(mode: FastPathMode): Promise<HostileService> {
  const mongoUri = testMongoUri();
  const service = await startService({ MONGODB_URI: mongoUri, API_TOKENS: TOKEN, FAST_PATH: mode, LOG_LEVEL: 'trace' });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const faults: string[] = [];

  const send = async (sent: Sent): Promise<Answer> => {
    const answer = await exchange(service.url, agent, sent).catch((error: unknown) => {
      throw new Error(`no answer to ${describeRequest(sent)}: ${String(error)}\nservice output ends:\n${service.output().slice(-3_000)}`);
    });
    const fault = faultOf(sent, answer);
    if (fault !== undefined) faults.push(`${fault}: ${describeRequest(sent)} -> ${answer.status} ${answer.body.slice(0, 300)}`);
    return answer;
  };

  return {
    mode,
    process: service,
    send,
    async expectUnharmed() {
      expect(service.child.exitCode, service.output().slice(-3_000)).toBeNull();
      const health = await exchange(service.url, agent, { method: 'GET', path: '/healthz' });
      expect(health.status).toBe(200);
      expect(faults).toEqual([]);
    },
    async storedPlants() {
      return (await pageThrough(httpPages(service.url, TOKEN, agent), 1000)).plants;
    },
    async stop() {
      agent.destroy();
      await service.stop('SIGTERM');
      const client = await new MongoClient(mongoUri).connect();
      await client.db().dropDatabase();
      await client.close();
    },
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
  return (trpc ? isTrpcError(parsed, status) : isRestError(parsed, status)) ? undefined : trpc ? 'not a tRPC error envelope' : 'not the Error shape';
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
  const headers = { authorization: `Bearer ${TOKEN}` };
  const rest = await service.send({ method: 'GET', path: `/plants/${id}`, headers });
  const trpc = await service.send({ method: 'GET', path: trpcQuery('getPlant', `{"id":${id}}`), headers });
  return { rest, trpc };
}

/** A plant answer's fields, ids exact. */
export const exactJson = (text: string) => int64Json.parse(text) as Record<string, unknown>;

function describeRequest({ method, path, body }: Sent): string {
  const shown = (text: string) => (text.length > 200 ? `${text.slice(0, 120)}…(${text.length} chars)…${text.slice(-40)}` : text);
  return `${method} ${shown(path)}${body === undefined ? '' : ` ${shown(body)}`}`;
}

function exchange(baseUrl: string, agent: Agent, { method, path, body, headers = {} }: Sent): Promise<Answer> {
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
