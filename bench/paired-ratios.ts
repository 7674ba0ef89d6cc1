/**
 * Ratios paired within a round: contender ÷ yardstick, each round's two figures taken seconds apart, then the median
 * over rounds. A machine that drifts between rounds moves both figures of a pair alike, so the pairs hold still where
 * medians taken across rounds apart do not.
 */

export const median = (values: readonly number[]): number => {
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

/** Per round, the lowest of the candidates' figures in that round (the best peer of that round), and whose it was. */
export function lowestPerRound(candidates: readonly { label: string; values: readonly number[] }[]): { value: number; label: string }[] {
  const rounds = Math.min(...candidates.map(({ values }) => values.length));
  return Array.from({ length: Number.isFinite(rounds) ? rounds : 0 }, (_, round) =>
    candidates.reduce<{ value: number; label: string }>(
      (lowest, { label, values }) => {
        const value = values[round] ?? Number.POSITIVE_INFINITY;
        return value < lowest.value ? { value, label } : lowest;
      },
      { value: Number.POSITIVE_INFINITY, label: '' },
    ),
  );
}

/** `1.03 (rounds 1.01 0.98 1.07)`: the median, then each round's ratio. */
export function formatPaired({ median: middle, rounds }: PairedRatio): string {
  return `${middle.toFixed(2)} (rounds ${rounds.map((ratio) => ratio.toFixed(2)).join(' ')})`;
}
