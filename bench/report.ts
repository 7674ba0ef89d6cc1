import type { RoundResult } from './load-round.js';
import { bestByPairedRatio, formatPaired, median, pairedRatio, type PairedRatio } from './paired-ratios.js';

/** A round's req/s and latency, with the server's CPU time per request: steadier than req/s on a busy machine. */
export interface MeasuredRound extends RoundResult {
  /** Server CPU per request; with CPU windows, the median of the contender's windows in the round. */
  cpuMicrosPerRequest: number;
  /** The rate the CPU figure was taken at, when not at saturation: with CPU windows, the lowest any of them reached. */
  cpuRequestsPerSecond?: number;
  /** The CPU figure ÷ another contender's (by its label), read in a window where both ran at once. */
  cpuAgainst?: Readonly<Record<string, number>>;
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
  /** The label of a reference this route may cost no more server CPU than, on every store. */
  costCeiling?: string | undefined;
  /** Round `i` of every contender of an operation ran in the same sweep: the pairs the ratios take (CPU's in `cpuAgainst`). */
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

const rateOf = (round: MeasuredRound) => round.requestsPerSecond;
const p99Of = (round: MeasuredRound) => round.p99Ms;
const cpuOf = (round: MeasuredRound) => round.cpuMicrosPerRequest;

/** One figure of a contender's rounds, in the rounds' order. */
const figures = (summary: ContenderSummary, figure: (round: MeasuredRound) => number): number[] => summary.rounds.map(figure);

/** A contender's figure against a yardstick's, paired within each round. */
export const paired = (summary: ContenderSummary, yardstick: ContenderSummary, figure: (round: MeasuredRound) => number): PairedRatio =>
  pairedRatio(figures(summary, figure), figures(yardstick, figure));

/**
 * A contender's server CPU against a yardstick's: in each round, as read in the window where both ran at once; for a
 * run without windows, the round's two figures divided. A round with windows but none shared with the yardstick
 * reads NaN, so a target can never be judged on figures from windows apart.
 */
export function cpuPaired(summary: ContenderSummary, yardstick: ContenderSummary): PairedRatio {
  const apart = paired(summary, yardstick, cpuOf).rounds;
  const rounds = apart.map((ratio, round) => {
    const against = summary.rounds[round]?.cpuAgainst;
    return summary === yardstick || against === undefined ? ratio : (against[yardstick.label] ?? Number.NaN);
  });
  return { median: median(rounds), rounds };
}

/** Each absolute figure is the median over the rounds, which shrugs off one round hit by a hiccup; the ratios are paired. */
function summarise({ label, reference, peer = false, rounds }: ContenderSummary): Row {
  return {
    label,
    reference,
    peer,
    requestsPerSecond: median(rounds.map(rateOf)),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map(p99Of)),
    cpuMicrosPerRequest: median(rounds.map(cpuOf)),
  };
}

/**
 * A table of req/s, p50, p99 and server CPU per contender, with ratios to the first (the baseline): the absolute figures
 * are medians over the rounds, the ratios medians of the rounds' paired ratios.
 */
export function formatTable(summaries: ContenderSummary[]): string {
  const [baseline] = summaries;
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
    'CPU ÷ baseline per round',
    'req/s per round',
  ];
  const body = summaries.map((summary) => {
    const row = summarise(summary);
    const cpu = cpuPaired(summary, baseline);
    return [
      row.label,
      Math.round(row.requestsPerSecond).toLocaleString('en'),
      String(row.p50Ms),
      String(row.p99Ms),
      paired(summary, baseline, rateOf).median.toFixed(2),
      paired(summary, baseline, p99Of).median.toFixed(2),
      Math.round(row.cpuMicrosPerRequest).toString(),
      cpu.median.toFixed(2),
      cpu.rounds.map((ratio) => ratio.toFixed(2)).join(' '),
      summary.rounds.map((round) => Math.round(round.requestsPerSecond)).join(' '),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), ...body.map(line)].join('\n');
}

/** One line: every contender's server CPU ÷ the baseline's, paired within rounds (`REST 1.06, tRPC 1.07; ...`). */
export function formatCpuAgainstBaseline(summaries: ContenderSummary[]): string {
  const [baseline, ...others] = summaries;
  if (!baseline || others.length === 0) return '';
  const ratios = others.map((summary) => `${summary.row ?? summary.label} ${cpuPaired(summary, baseline).median.toFixed(2)}`);
  return `  server CPU ÷ the baseline's, paired within rounds (median over rounds): ${ratios.join('; ')}`;
}

/**
 * The rate every contender's CPU was measured at, two contenders at once, and the contenders that fell short of it in
 * some round (they saturated, so their CPU figure is not one at the common rate).
 */
export function formatCpuRate(summaries: ContenderSummary[], rate: number): string {
  const short = summaries.filter((summary) => summary.rounds.some((round) => (round.cpuRequestsPerSecond ?? rate) < SHORT_OF_RATE * rate));
  const shortText = short.length === 0 ? '' : `; short of that rate in some round: ${short.map((summary) => summary.label).join(', ')}`;
  return (
    `  server CPU per request taken at ${rate.toLocaleString('en')} req/s, two contenders at once in each window ` +
    `(half the slowest one's warm-up rate each)${shortText}`
  );
}

/** Below this share of the asked rate, a round was not at that rate. */
const SHORT_OF_RATE = 0.95;

export const megabytes = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** How every target line starts. */
export const verdict = (met: boolean): string => (met ? 'met   ' : 'MISSED');

/** Targets against the baseline: at least `minRatio` of the baseline's req/s, and (if given) p99 at most `maxP99Ratio` times its p99. */
export interface Target {
  minRatio: number;
  maxP99Ratio?: number;
}

const isRoute = (summary: ContenderSummary) => !summary.reference && summary.peer !== true;

/** One line per route (not the baseline, a reference or a peer): met or missed on ratios paired within rounds. */
export function formatTargets(summaries: ContenderSummary[], { minRatio, maxP99Ratio }: Target): string {
  const [baseline, ...others] = summaries;
  if (!baseline) return '';
  return others
    .filter(isRoute)
    .map((summary) => {
      const rate = paired(summary, baseline, rateOf);
      const p99 = paired(summary, baseline, p99Of);
      const met = rate.median >= minRatio && (maxP99Ratio === undefined || p99.median <= maxP99Ratio);
      const p99Text = maxP99Ratio === undefined ? '' : `, p99 ${formatPaired(p99)} (target ≤ ${maxP99Ratio}×)`;
      return `  ${verdict(met)} ${summary.label}: req/s ÷ the baseline's ${formatPaired(rate)} (target ≥ ${minRatio}×)${p99Text}`;
    })
    .join('\n');
}

/**
 * The service's routes (neither baseline, reference nor peer) against the other stacks. No-op store: a route is met
 * when the median over rounds of its server CPU per request ÷ the best peer's in the same round is at most
 * `maxCpuRatio` (the spread between processes of the same code), or ÷ its `judgedAgainst` reference's when the peers
 * do other work on the wire. The best peer is the one of least CPU ÷ the baseline's, paired; the route's ratio to
 * every peer, its req/s and the fastest peer's are shown beside it. MongoDB store: req/s ÷ the baseline's, paired, at
 * least `minRatio`.
 */
export function formatPeerTargets(summaries: ContenderSummary[], target: { maxCpuRatio: number } | { minRatio: number }): string {
  const [baseline, ...others] = summaries;
  if (!baseline) return '';
  const peers = others.filter((summary) => summary.peer === true);
  const routes = others.filter(isRoute);
  if ('minRatio' in target) {
    return routes
      .map((summary) => {
        const rate = paired(summary, baseline, rateOf);
        return `  ${verdict(rate.median >= target.minRatio)} ${summary.label}, req/s ÷ the baseline's: ${formatPaired(rate)} (target ≥ ${target.minRatio}×)`;
      })
      .join('\n');
  }
  const judged = routes.filter((summary) => summary.judgedAgainst !== undefined || summary.costCeiling === undefined);
  if (judged.length === 0) return '';
  const best = bestByPairedRatio(peers, (peer) => cpuPaired(peer, baseline));
  const fastest = peers
    .map((peer) => summarise(peer))
    .reduce<Row | undefined>((lead, row) => (lead === undefined || row.requestsPerSecond > lead.requestsPerSecond ? row : lead), undefined);
  const within = `within ${Math.round((target.maxCpuRatio - 1) * 100)}%`;
  const rate = (value: number) => Math.round(value).toLocaleString('en');
  return judged
    .map((summary) => {
      const reference = summary.judgedAgainst === undefined ? undefined : others.find((other) => other.label === summary.judgedAgainst);
      const yardstick = reference ?? best;
      if (!yardstick) return `  (${summary.label}, server CPU against the peers: no peer in this run)`;
      const ratio = cpuPaired(summary, yardstick);
      const eachPeer = peers.map((peer) => `${peer.label} ${cpuPaired(summary, peer).median.toFixed(2)}`).join(', ');
      const against = reference ? `${reference.label}, the same round` : `${yardstick.label} (least CPU ÷ the baseline's), the same round`;
      const rates = fastest
        ? `; ${rate(summarise(summary).requestsPerSecond)} req/s against the fastest peer's ${rate(fastest.requestsPerSecond)} (${fastest.label})`
        : '';
      return (
        `  ${verdict(ratio.median <= target.maxCpuRatio)} ${summary.label}, server CPU ${within} of ${reference ? "the reference's" : "the best peer's"}: ` +
        `÷ ${against}: ${formatPaired(ratio)} (target ≤ ${target.maxCpuRatio})${reference ? '' : `; ÷ each peer: ${eachPeer}`}${rates}`
      );
    })
    .join('\n');
}

/**
 * Routes held to a reference's cost on every store (an update to a create): the median over rounds of server CPU per
 * request ÷ the reference's in the same round, at most `maxCpuRatio`. A baseline that names a reference of its own gets
 * the same ratio, for scale and with no verdict: what the work costs with none of the service's layers.
 */
export function formatCostCeilings(summaries: ContenderSummary[], maxCpuRatio: number): string {
  const [baseline] = summaries;
  return summaries
    .filter((summary) => summary.costCeiling !== undefined && (summary === baseline || isRoute(summary)))
    .map((summary) => {
      const reference = summaries.find((other) => other.label === summary.costCeiling);
      if (!reference) return `  (${summary.label}: its reference ${String(summary.costCeiling)} was not run)`;
      const ratio = cpuPaired(summary, reference);
      const micros = (row: Row) => `${Math.round(row.cpuMicrosPerRequest)} µs`;
      const medians = `medians ${micros(summarise(summary))} against ${micros(summarise(reference))}`;
      if (summary === baseline)
        return `  for scale, ${summary.label}: server CPU per request ÷ ${reference.label}, the same round: ${formatPaired(ratio)}; ${medians}`;
      return (
        `  ${verdict(ratio.median <= maxCpuRatio)} ${summary.label}, server CPU per request no more than ${reference.label}: ` +
        `÷ it in the same round ${formatPaired(ratio)} (target ≤ ${maxCpuRatio}); ${medians}`
      );
    })
    .join('\n');
}
