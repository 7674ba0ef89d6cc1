import type { Contender } from './contenders.js';

/** Two contenders whose server CPU is taken in one window, both under load at once. */
export type CpuWindow = readonly [Contender, Contender];

/**
 * The CPU windows of an operation whose first contender is the baseline: every other contender beside the baseline
 * (the table's ratios, and which peer is best), and every route beside each yardstick it is judged against (each
 * peer, its own reference, or the create it may cost no more than), so that every judged ratio is read within one
 * window. The baseline's own reference (an update's create, for scale) has its window beside the baseline.
 */
export function cpuWindows(contenders: readonly Contender[]): CpuWindow[] {
  const [baseline, ...others] = contenders;
  if (!baseline) return [];
  const peers = others.filter((contender) => contender.peer === true);
  const yardsticksOf = (contender: Contender): Contender[] => {
    if (contender.reference === true || contender.peer === true) return [];
    if (contender.judgedAgainst === undefined && contender.costCeiling === undefined) return peers;
    return others.filter(({ label }) => label === contender.judgedAgainst || label === contender.costCeiling);
  };
  return others.flatMap((contender): CpuWindow[] => [
    [contender, baseline],
    ...yardsticksOf(contender).map((yardstick): CpuWindow => [contender, yardstick]),
  ]);
}
