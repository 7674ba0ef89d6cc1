import type { RoundResult } from './load-round.js';

/** A round, with the server's CPU time per request: steadier than req/s on a busy machine. */
export interface MeasuredRound extends RoundResult {
  cpuMicrosPerRequest: number;
}

export interface ContenderSummary {
  label: string;
  /** Its row in the results table (bench/results-table.ts); the label when absent. */
  row?: string | undefined;
  /** Shown for reference, with no target. */
  reference: boolean;
  /** A peer stack: the yardstick of the routes' CPU targets, with none of its own. */
  peer?: boolean;
  /** The label of the reference this route's CPU is judged against instead of the best peer's. */
  judgedAgainst?: string | undefined;
  rounds: MeasuredRound[];
}

interface Row {
  label: string;
  reference: boolean;
  peer: boolean;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerRequest: number;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
};

/** Each figure is the median over the rounds, which shrugs off one round hit by a hiccup. */
function summarise({ label, reference, peer = false, rounds }: ContenderSummary): Row {
  return {
    label,
    reference,
    peer,
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    cpuMicrosPerRequest: median(rounds.map((round) => round.cpuMicrosPerRequest)),
  };
}

/** A table of req/s, p50 and p99 per contender, with ratios to the first (the baseline). */
export function formatTable(summaries: ContenderSummary[]): string {
  const rows = summaries.map(summarise);
  const [baseline] = rows;
  if (!baseline) return '(no results)';
  const header = [
    'contender',
    'req/s',
    'p50 ms',
    'p99 ms',
    'req/s ÷ baseline',
    'p99 ÷ baseline',
    'server CPU µs/req',
    'CPU ÷ baseline',
    'req/s per round',
  ];
  const body = rows.map((row, index) => [
    row.label,
    Math.round(row.requestsPerSecond).toLocaleString('en'),
    String(row.p50Ms),
    String(row.p99Ms),
    (row.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
    (row.p99Ms / baseline.p99Ms).toFixed(2),
    Math.round(row.cpuMicrosPerRequest).toString(),
    (row.cpuMicrosPerRequest / baseline.cpuMicrosPerRequest).toFixed(2),
    (summaries[index]?.rounds ?? []).map((round) => Math.round(round.requestsPerSecond)).join(' '),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), ...body.map(line)].join('\n');
}

export const megabytes = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** How every target line starts. */
export const verdict = (met: boolean): string => (met ? 'met   ' : 'MISSED');

/** Targets against the baseline: at least `minRatio` of the baseline's req/s, and (if given) p99 at most `maxP99Ratio` times its p99. */
export interface Target {
  minRatio: number;
  maxP99Ratio?: number;
}

/** One line per contender after the baseline (but the reference and the peers): met or missed, with the figures that decide it. */
export function formatTargets(summaries: ContenderSummary[], { minRatio, maxP99Ratio }: Target): string {
  const [baseline, ...others] = summaries.map(summarise);
  if (!baseline) return '';
  return others
    .filter((row) => !row.reference && !row.peer)
    .map((row) => {
      const ratio = row.requestsPerSecond / baseline.requestsPerSecond;
      const p99Ratio = row.p99Ms / baseline.p99Ms;
      const met = ratio >= minRatio && (maxP99Ratio === undefined || p99Ratio <= maxP99Ratio);
      const p99 = maxP99Ratio === undefined ? '' : `, p99 ${p99Ratio.toFixed(2)}× (target ≤ ${maxP99Ratio}×)`;
      return `  ${verdict(met)} ${row.label}: ${ratio.toFixed(2)}× the baseline's req/s (target ≥ ${minRatio}×)${p99}`;
    })
    .join('\n');
}

/**
 * The service's routes (neither baseline, reference nor peer) against the other stacks. No-op
 * store: a route is met when its server CPU per request is at most `maxCpuRatio` times the
 * leanest peer's (the spread between processes of the same code), or times its `judgedAgainst`
 * reference's when the peers do other work on the wire; its req/s and the fastest peer's are
 * shown beside it. MongoDB store: req/s at least `minRatio` of the baseline's. Each figure is a
 * median over the rounds.
 *
 * Each no-op line also says in how many rounds the route cost no more CPU than its yardstick did
 * in the same round. The rounds are interleaved, so each such pair ran seconds apart on the same
 * machine: a verdict the route wins in most rounds is a gap, one it wins in about half is noise.
 */
export function formatPeerTargets(summaries: ContenderSummary[], target: { maxCpuRatio: number } | { minRatio: number }): string {
  const [baseline, ...others] = summaries.map((summary) => ({ summary, row: summarise(summary) }));
  if (!baseline) return '';
  const peers = others.filter(({ row }) => row.peer);
  const routes = others.filter(({ row }) => !row.reference && !row.peer);
  if ('minRatio' in target) {
    return routes
      .map(({ row }) => {
        const ratio = row.requestsPerSecond / baseline.row.requestsPerSecond;
        return `  ${verdict(ratio >= target.minRatio)} ${row.label}, req/s against the baseline's: ${ratio.toFixed(2)}× (target ≥ ${target.minRatio}×)`;
      })
      .join('\n');
  }
  const leanest = bestOf(peers, (a, b) => a.cpuMicrosPerRequest < b.cpuMicrosPerRequest);
  const fastest = bestOf(peers, (a, b) => a.requestsPerSecond > b.requestsPerSecond);
  if (!leanest || !fastest) return '  (server CPU against the peers: no peer in this run)';
  const micros = (value: number) => `${Math.round(value)} µs`;
  const rate = (value: number) => Math.round(value).toLocaleString('en');
  const within = `within ${Math.round((target.maxCpuRatio - 1) * 100)}%`;
  return routes
    .map(({ summary, row }) => {
      const reference = summary.judgedAgainst === undefined ? undefined : others.find((other) => other.row.label === summary.judgedAgainst);
      const yardstick = reference ?? leanest;
      const whose = reference ? "the reference's" : "the best peer's";
      const met = row.cpuMicrosPerRequest <= yardstick.row.cpuMicrosPerRequest * target.maxCpuRatio;
      return (
        `  ${verdict(met)} ${row.label}, server CPU ${within} of ${whose}: ${micros(row.cpuMicrosPerRequest)}/req against ${micros(yardstick.row.cpuMicrosPerRequest)} (${yardstick.row.label}; ` +
        `no more in ${roundsNoCostlier(summary.rounds, yardstick.summary.rounds)} rounds); ${rate(row.requestsPerSecond)} req/s against the best peer's ${rate(fastest.row.requestsPerSecond)} (${fastest.row.label})`
      );
    })
    .join('\n');
}

/** The candidate whose row is `better` than every other's (the first of equals). */
function bestOf<T extends { row: Row }>(candidates: T[], better: (a: Row, b: Row) => boolean): T | undefined {
  return candidates.reduce<T | undefined>(
    (best, candidate) => (best === undefined || better(candidate.row, best.row) ? candidate : best),
    undefined,
  );
}

/** "k of n": the rounds in which `route` used no more server CPU per request than `peer` in the same round. */
function roundsNoCostlier(route: MeasuredRound[], peer: MeasuredRound[]): string {
  const pairs = Math.min(route.length, peer.length);
  let count = 0;
  for (let index = 0; index < pairs; index += 1) {
    if ((route[index]?.cpuMicrosPerRequest ?? Number.POSITIVE_INFINITY) <= (peer[index]?.cpuMicrosPerRequest ?? Number.NEGATIVE_INFINITY))
      count += 1;
  }
  return `${count} of ${pairs}`;
}
