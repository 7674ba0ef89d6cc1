/**
 * Ratios paired within a round: contender ÷ yardstick, each round's two figures taken at once or seconds apart, then
 * the median over rounds. A machine that drifts between rounds moves both figures of a pair alike, so the pairs hold still where
 * medians taken across rounds apart do not.
 */

/** The median; NaN when a value is NaN, which no order can place. */
export const median = (values: readonly number[]): number => {
  if (values.some(Number.isNaN)) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
};

export interface PairedRatio {
  /** The median of `rounds`: the figure a target judges. */
  median: number;
  /** Contender ÷ yardstick in each round both ran, in the rounds' order. */
  rounds: number[];
}

/** `values[i] ÷ yardstick[i]` for every round both have, and their median. */
export function pairedRatio(values: readonly number[], yardstick: readonly number[]): PairedRatio {
  const rounds = values.slice(0, yardstick.length).map((value, round) => value / (yardstick[round] ?? Number.NaN));
  return { median: median(rounds), rounds };
}

/**
 * The candidate that costs least against the yardstick: the lowest median of its paired ratios. Taking the lowest
 * candidate of each round instead would judge against a figure below every candidate's own, since of two noisy
 * figures the lower is more often the one that drew the low noise.
 */
export function bestByPairedRatio<Candidate>(
  candidates: readonly Candidate[],
  againstYardstick: (candidate: Candidate) => PairedRatio,
): Candidate | undefined {
  return candidates
    .map((candidate) => ({ candidate, ratio: againstYardstick(candidate).median }))
    .reduce<{ candidate: Candidate; ratio: number } | undefined>(
      (best, next) => (best === undefined || next.ratio < best.ratio ? next : best),
      undefined,
    )?.candidate;
}

/** `1.03 (rounds 1.01 0.98 1.07)`: the median, then each round's ratio. */
export function formatPaired({ median: middle, rounds }: PairedRatio): string {
  return `${middle.toFixed(2)} (rounds ${rounds.map((ratio) => ratio.toFixed(2)).join(' ')})`;
}
