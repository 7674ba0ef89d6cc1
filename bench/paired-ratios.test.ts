import { describe, expect, it } from 'vitest';
import type { MeasuredRound } from './report.js';
import { formatCostCeilings, formatCpuRate, formatPeerTargets, formatTargets, type ContenderSummary } from './report.js';
import { bestByPairedRatio, formatPaired, median, pairedRatio } from './paired-ratios.js';

/** Rounds with only the figures a test sets; the rest alike in every round. */
const rounds = (cpu: number[], rate = cpu.map(() => 10_000)): MeasuredRound[] =>
  cpu.map((cpuMicrosPerRequest, round) => ({
    cpuMicrosPerRequest,
    requestsPerSecond: rate[round] ?? 10_000,
    requests: 30_000,
    p50Ms: 4,
    p99Ms: 10,
  }));

const contender = (label: string, cpu: number[], extra: Partial<ContenderSummary> = {}): ContenderSummary => ({
  label,
  reference: false,
  rounds: rounds(cpu),
  ...extra,
});

/** A contender whose CPU figures each round came from windows shared with others: its figure ÷ theirs, by label. */
const withWindows = (
  label: string,
  cpu: number[],
  against: Record<string, number>[],
  extra: Partial<ContenderSummary> = {},
): ContenderSummary => ({
  ...contender(label, cpu, extra),
  rounds: rounds(cpu).map((round, index) => ({ ...round, cpuAgainst: against[index] ?? {} })),
});

describe('pairedRatio', () => {
  it('divides round by round and takes the median of the ratios', () => {
    expect(pairedRatio([110, 60, 200], [100, 50, 200])).toEqual({ median: 1.1, rounds: [1.1, 1.2, 1] });
  });

  it('pairs only the rounds both ran', () => {
    expect(pairedRatio([10, 20, 30, 40], [10, 10]).rounds).toEqual([1, 2]);
  });

  // The machine's speed changes from round to round. The route costs 2% less than the peer in three rounds of five and
  // 20% more in two; its median across rounds comes from another round than the peer's, and says 20% more.
  const drifting = { route: [98, 294, 147, 240, 300], peer: [100, 300, 150, 200, 250] };

  it('judges by the pairs where medians across rounds disagree', () => {
    expect(median(drifting.route) / median(drifting.peer)).toBeCloseTo(1.2, 6);
    const byPairs = pairedRatio(drifting.route, drifting.peer);
    expect(byPairs.rounds.map((ratio) => Number(ratio.toFixed(3)))).toEqual([0.98, 0.98, 0.98, 1.2, 1.2]);
    expect(byPairs.median).toBeCloseTo(0.98, 6);
  });

  it('formats the median, then each round', () => {
    expect(formatPaired({ median: 1.034, rounds: [1.01, 0.98, 1.07] })).toBe('1.03 (rounds 1.01 0.98 1.07)');
  });
});

describe('bestByPairedRatio', () => {
  it('takes the candidate of the lowest median ratio to the yardstick, not the lowest of each round', () => {
    // b is the lower in rounds 2 and 3, yet a costs the least against the yardstick: a median of 1.0 against 1.04.
    const yardstick = [100, 100, 100];
    const a = { label: 'a', values: [100, 110, 100] };
    const b = { label: 'b', values: [140, 104, 95] };
    const against = (candidate: { values: number[] }) => pairedRatio(candidate.values, yardstick);
    expect(bestByPairedRatio([a, b], against)).toBe(a);
    expect(bestByPairedRatio([b, a], against)).toBe(a);
  });

  it('pairs within rounds, so a candidate measured in slow rounds is not taken for dearer', () => {
    const yardstick = [100, 200, 400];
    const steady = { label: 'steady', values: [110, 220, 440] };
    const drifted = { label: 'drifted', values: [105, 210, 420] };
    expect(bestByPairedRatio([steady, drifted], (candidate) => pairedRatio(candidate.values, yardstick))).toBe(drifted);
  });

  it('has none without candidates', () => {
    expect(bestByPairedRatio<{ values: number[] }>([], () => pairedRatio([1], [1]))).toBeUndefined();
  });
});

describe('target lines', () => {
  const baseline = contender('baseline', [50, 50, 50]);

  it('holds a route to the peer of least CPU against the baseline, paired within the same rounds', () => {
    // Peer A costs the least against the baseline (median 2.0 against B's 2.08), though B is the leaner in rounds 2
    // and 3. The route is judged ÷ A round by round: 1.04, 1.0, 1.01; the lowest peer of each round would read 1.04,
    // 1.06, 1.06, below what either peer costs.
    const peerA = contender('peer A', [100, 110, 100], { peer: true });
    const peerB = contender('peer B', [140, 104, 95], { peer: true });
    const route = contender('route', [104, 110, 101]);
    const line = formatPeerTargets([baseline, route, peerA, peerB], { maxCpuRatio: 1.05 });
    expect(line).toContain("met    route, server CPU within 5% of the best peer's: ÷ peer A (least CPU ÷ the baseline's), the same round");
    expect(line).toContain('1.01 (rounds 1.04 1.00 1.01)');
    expect(line).toContain('÷ each peer: peer A 1.01, peer B 1.06');
    const dearer = contender('dearer route', [107, 116, 106]);
    expect(formatPeerTargets([baseline, dearer, peerA, peerB], { maxCpuRatio: 1.05 })).toContain('MISSED dearer route');
  });

  it('meets a route that drift makes look costlier by its medians', () => {
    const peer = contender('peer', [100, 300, 150, 200, 250], { peer: true });
    const route = contender('route', [98, 294, 147, 240, 300]);
    const line = formatPeerTargets([contender('baseline', [1, 1, 1, 1, 1]), route, peer], { maxCpuRatio: 1.05 });
    expect(line).toMatch(/^ {2}met {4}route/);
    expect(line).toContain('0.98 (rounds 0.98 0.98 0.98 1.20 1.20)');
  });

  it('reads CPU ratios from the window two contenders shared, where there is one', () => {
    // The route's and the peer's figures below come from windows that met the machine at different speeds: divided,
    // they read 2.00 then 0.50; read in the window both ran at once, 1.04 and 1.02.
    const base = contender('baseline', [50, 50]);
    const peer = withWindows('peer', [100, 400], [{ route: 1 / 1.04 }, { route: 1 / 1.02 }], { peer: true });
    const route = withWindows('route', [200, 200], [{ peer: 1.04 }, { peer: 1.02 }]);
    const line = formatPeerTargets([base, route, peer], { maxCpuRatio: 1.05 });
    expect(line).toMatch(/^ {2}met {4}route/);
    expect(line).toContain('1.03 (rounds 1.04 1.02)');
  });

  it('holds an update to the create it shared a window with, and never to figures from windows apart', () => {
    // Divided, the two rounds read 1.29 and 0.67; in their shared windows, 0.98 and 0.99.
    const create = withWindows('create', [70, 90], [{ update: 1 / 0.98 }, { update: 1 / 0.99 }], { reference: true });
    const update = withWindows('update', [90, 60], [{ create: 0.98 }, { create: 0.99 }], { costCeiling: 'create' });
    expect(formatCostCeilings([baseline, update, create], 1)).toMatch(/met {4}update.*\(rounds 0\.98 0\.99\)/);
    const apart = withWindows('update', [90, 60], [{}, {}], { costCeiling: 'create' });
    expect(formatCostCeilings([baseline, apart, create], 1)).toMatch(/MISSED update.*NaN \(rounds NaN NaN\)/);
  });

  it("judges a route with a reference against that reference's same rounds", () => {
    const reference = contender('wire-shape reference', [60, 70, 80], { reference: true });
    const route = contender('route', [62, 72, 90], { judgedAgainst: 'wire-shape reference' });
    const line = formatPeerTargets([baseline, route, reference, contender('peer', [10, 10, 10], { peer: true })], { maxCpuRatio: 1.05 });
    expect(line).toContain('met    route');
    expect(line).toContain('1.03 (rounds 1.03 1.03 1.13)');
  });

  it('holds an update to a create in the same rounds, and leaves it out of the peer lines', () => {
    const create = contender('create', [70, 90, 80], { reference: true });
    const update = contender('update', [69, 91, 79], { costCeiling: 'create' });
    const summaries = [baseline, update, create];
    const line = formatCostCeilings(summaries, 1);
    expect(line).toContain('met    update, server CPU per request no more than create');
    expect(line).toContain('0.99 (rounds 0.99 1.01 0.99)');
    expect(formatCostCeilings([baseline, contender('update', [72, 91, 81], { costCeiling: 'create' }), create], 1)).toContain(
      'MISSED update',
    );
    expect(formatPeerTargets(summaries, { maxCpuRatio: 1.05 })).toBe('');
  });

  it("gives the baseline's own update ÷ create for scale, with no verdict", () => {
    const create = contender('create', [70, 90, 80], { reference: true });
    const baselineCreate = contender('baseline create', [50, 50, 50], { reference: true });
    const scaled = contender('baseline', [55, 60, 54], { costCeiling: 'baseline create' });
    const lines = formatCostCeilings([scaled, contender('update', [69, 91, 79], { costCeiling: 'create' }), create, baselineCreate], 1);
    expect(lines).toContain('for scale, baseline: server CPU per request ÷ baseline create, the same round: 1.10 (rounds 1.10 1.20 1.08)');
    expect(lines.split('\n').filter((line) => /^ {2}(met|MISSED)/.test(line))).toHaveLength(1);
  });

  it("judges req/s against the baseline's by pairs", () => {
    const paced = { ...contender('route', [1, 1, 1]), rounds: rounds([1, 1, 1], [4_000, 9_000, 5_000]) };
    const base = { ...contender('baseline', [1, 1, 1]), rounds: rounds([1, 1, 1], [5_000, 10_000, 20_000]) };
    // Medians: 5,000 against 10,000 (0.5×); pairs: 0.8, 0.9, 0.25, whose median is 0.8.
    expect(formatTargets([base, paced], { minRatio: 0.6 })).toContain("met    route: req/s ÷ the baseline's 0.80 (rounds 0.80 0.90 0.25)");
  });
});

describe('formatCpuRate', () => {
  const atRate = (label: string, reached: number[]): ContenderSummary => ({
    ...contender(label, []),
    rounds: rounds(reached.map(() => 20)).map((round, index) => ({ ...round, cpuRequestsPerSecond: reached[index] ?? 0 })),
  });

  it('names the rate and no contender when every round reached it', () => {
    expect(formatCpuRate([atRate('baseline', [8_000, 7_990]), atRate('REST', [8_010, 7_980])], 8_000)).toBe(
      "  server CPU per request taken at 8,000 req/s, two contenders at once in each window (half the slowest one's warm-up rate each)",
    );
  });

  it('names the contenders that fell short of the rate in a round, whose CPU is then not at that rate', () => {
    expect(formatCpuRate([atRate('baseline', [8_000, 8_000]), atRate('oRPC', [8_000, 6_500])], 8_000)).toMatch(
      /short of that rate in some round: oRPC$/,
    );
  });
});
