import { Agent } from 'node:http';
import { postJson } from '../http-post.js';

export interface LoadPlant {
  id: number;
  name: string;
  tag: string;
}

export interface DriveOptions {
  url: string;
  token: string;
  plants: readonly LoadPlant[];
  concurrency: number;
  /** Told of each plant as soon as it is answered 200. */
  onOk?: (id: number) => void;
}

export interface DriveResult {
  sent: number;
  ok: number;
  /** Count per status other than 200; network errors under their code (ECONNRESET...). */
  others: Record<string, number>;
  serverErrors: number;
  /** Ids answered 200: each must be in the database. */
  okIds: number[];
  elapsedMs: number;
}

/**
 * `concurrency` clients, each on its own keep-alive connection, take the next plant until all are
 * sent. Nothing is retried: every answer counts as it came.
 */
export async function driveLoad({ url, token, plants, concurrency, onOk }: DriveOptions): Promise<DriveResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const result: DriveResult = { sent: 0, ok: 0, others: {}, serverErrors: 0, okIds: [], elapsedMs: 0 };
  const started = performance.now();
  let next = 0;
  const client = async () => {
    for (let plant = plants[next++]; plant !== undefined; plant = plants[next++]) {
      result.sent += 1;
      const outcome = await postJson(`${url}/plants`, plant, token, { agent });
      if (outcome.status === 200) {
        result.ok += 1;
        result.okIds.push(plant.id);
        onOk?.(plant.id);
        continue;
      }
      const key = outcome.status === undefined ? outcome.error : String(outcome.status);
      result.others[key] = (result.others[key] ?? 0) + 1;
      if (outcome.status !== undefined && outcome.status >= 500) result.serverErrors += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, client));
  } finally {
    agent.destroy();
  }
  result.elapsedMs = performance.now() - started;
  return result;
}

/** `count` distinct plants with ids from `firstId`, names and tags that vary so a mix-up shows. */
export function makePlants(count: number, firstId: number): LoadPlant[] {
  return Array.from({ length: count }, (_, index) => ({
    id: firstId + index,
    name: `plant ${firstId + index}`,
    tag: `batch-${index % 7}`,
  }));
}
