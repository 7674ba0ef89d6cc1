// Steady traffic against a running service while its MongoDB comes and goes: each client creates the
// next plant and, once that is answered 200, reads it back, until told to stop. Every exchange is
// kept with when it was sent and answered, so a test can say how long refusals took and when the
// service healed.
import { Agent, request } from 'node:http';
import { postJson } from './http-post.js';

export interface Exchange {
  kind: 'create' | 'get';
  id: number;
  /** performance.now() when sent and when answered (or failed). */
  sentAt: number;
  answeredAt: number;
  /** The status, or the network error's code when there was no answer. */
  outcome: number | string;
  /** A 200 whose body is not the plant created. */
  wrongBody?: string;
}

export interface Traffic {
  readonly exchanges: readonly Exchange[];
  /** Ids answered 200 to their create. */
  okIds(): number[];
  stop(): Promise<void>;
}

export interface TrafficOptions {
  url: string;
  token: string;
  clients?: number;
  firstId?: number;
  /** How long a client waits for an answer before counting the exchange as `ETIMEDOUT`. */
  timeoutMs?: number;
}

/** After a refusal a client waits this long, as a client honouring Retry-After would, only shorter. */
const PAUSE_AFTER_REFUSAL_MS = 50;

export function startTraffic({ url, token, clients = 8, firstId = 1, timeoutMs = 15_000 }: TrafficOptions): Traffic {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const exchanges: Exchange[] = [];
  let nextId = firstId;
  let stopping = false;

  const client = async () => {
    while (!stopping) {
      const id = nextId++;
      const plant = { id, name: `plant ${id}` };
      let sentAt = performance.now();
      const created = await postJson(`${url}/plants`, plant, token, { agent, timeoutMs });
      const createdOutcome = created.status ?? created.error;
      exchanges.push({
        kind: 'create',
        id,
        sentAt,
        answeredAt: performance.now(),
        outcome: createdOutcome,
        ...(created.status === 200 && created.body !== JSON.stringify({ name: plant.name }) && { wrongBody: created.body }),
      });
      if (createdOutcome !== 200) {
        await new Promise((resolve) => setTimeout(resolve, PAUSE_AFTER_REFUSAL_MS));
        continue;
      }
      sentAt = performance.now();
      const read = await get(`${url}/plants/${id}`, token, agent, timeoutMs);
      exchanges.push({
        kind: 'get',
        id,
        sentAt,
        answeredAt: performance.now(),
        outcome: read.outcome,
        ...(read.outcome === 200 && read.body !== JSON.stringify(plant) && { wrongBody: read.body }),
      });
    }
  };
  const running = Promise.all(Array.from({ length: clients }, client));

  return {
    exchanges,
    okIds: () => exchanges.filter((exchange) => exchange.kind === 'create' && exchange.outcome === 200).map((exchange) => exchange.id),
    stop: async () => {
      stopping = true;
      await running;
      agent.destroy();
    },
  };
}

function get(url: string, token: string, agent: Agent, timeoutMs: number): Promise<{ outcome: number | string; body: string }> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ outcome: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ outcome: error.code ?? error.message, body: '' });
    });
    req.end();
  });
}

/** How many exchanges came to each `kind outcome`, such as `{ "create 200": 812, "create 503": 40 }`. */
export function tally(exchanges: readonly Exchange[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { kind, outcome, wrongBody } of exchanges) {
    const key = `${kind} ${outcome}${wrongBody === undefined ? '' : ' (wrong body)'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Exchanges answered anything but 200 with the right body or 503. */
export function unexpected(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.filter(({ outcome, wrongBody }) => (outcome !== 200 && outcome !== 503) || wrongBody !== undefined);
}

/** The longest any exchange took, in ms, and what it came to. */
export function slowest(exchanges: readonly Exchange[]): { ms: number; exchange: Exchange | undefined } {
  let found: { ms: number; exchange: Exchange | undefined } = { ms: 0, exchange: undefined };
  for (const exchange of exchanges) {
    const ms = exchange.answeredAt - exchange.sentAt;
    if (ms > found.ms) found = { ms, exchange };
  }
  return found;
}

export interface Healing {
  /** From `answeringAt` to the first 200 answered after it; Infinity when none came. */
  healMs: number;
  /** Exchanges sent once the service had healed that were still refused. */
  refusedAfter: Exchange[];
}

/** How the service healed once MongoDB answered again at `answeringAt` (performance.now()). */
export function healing(exchanges: readonly Exchange[], answeringAt: number): Healing {
  const firstOk = exchanges
    .filter((exchange) => exchange.outcome === 200 && exchange.answeredAt >= answeringAt)
    .reduce<number>((earliest, exchange) => Math.min(earliest, exchange.answeredAt), Number.POSITIVE_INFINITY);
  return {
    healMs: firstOk - answeringAt,
    refusedAfter: exchanges.filter((exchange) => exchange.sentAt >= firstOk && exchange.outcome !== 200),
  };
}
