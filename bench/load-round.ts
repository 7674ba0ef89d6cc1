import autocannon, { type Request, type Result } from 'autocannon';

export interface RoundOptions {
  url: string;
  requests: Request[];
  connections: number;
  /** Seconds to run, unless `amount` is given. */
  durationSeconds?: number;
  /** Exactly this many requests, then stop. */
  amount?: number;
}

export interface RoundResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** One autocannon run. It fails loudly unless every response was a 200. */
export async function runRound({ url, requests, connections, durationSeconds, amount }: RoundOptions): Promise<RoundResult> {
  const result = await autocannon({
    url,
    requests,
    connections,
    pipelining: 1,
    ...(amount === undefined ? { duration: durationSeconds ?? 3 } : { amount }),
  });
  assertAllOk(result);
  const completed = result['2xx'];
  return { requests: completed, requestsPerSecond: completed / result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

function assertAllOk(result: Result): void {
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => `${code}×${count ?? 0}`);
  const onlyOk = statuses.every((entry) => entry.startsWith('200×'));
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || !onlyOk || result['2xx'] === 0) {
    throw new Error(
      `${result.url}: expected only 200 responses, got statuses [${statuses.join(', ')}], ` +
        `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
}
