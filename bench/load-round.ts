import autocannon, { type Request, type Result } from 'autocannon';

export interface RoundOptions {
  url: string;
  requests: Request[];
  connections: number;
  /** Seconds to run, unless `amount` is given. */
  durationSeconds?: number;
  /** Exactly this many requests, then stop. */
  amount?: number;
  /** The status every response must have (200 unless given). */
  status?: number;
  /** Requests per second, all connections together; as fast as the server answers unless given. */
  rate?: number;
}

export interface RoundResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** One autocannon run. It fails loudly unless every response had the expected status (200 unless given). */
export async function runRound({
  url,
  requests,
  connections,
  durationSeconds,
  amount,
  status = 200,
  rate,
}: RoundOptions): Promise<RoundResult> {
  const result = await autocannon({
    url,
    requests,
    connections,
    pipelining: 1,
    ...(rate !== undefined && { overallRate: rate }),
    ...(amount === undefined ? { duration: durationSeconds ?? 3 } : { amount }),
  });
  assertAll(result, status);
  const completed = result['2xx'];
  return { requests: completed, requestsPerSecond: completed / result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

function assertAll(result: Result, status: number): void {
  const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => `${code}×${count ?? 0}`);
  const onlyExpected = statuses.every((entry) => entry.startsWith(`${status}×`));
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || !onlyExpected || result['2xx'] === 0) {
    throw new Error(
      `${result.url}: expected only ${status} responses, got statuses [${statuses.join(', ')}], ` +
        `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
}
