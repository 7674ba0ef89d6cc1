import type { ServerKind } from './child-protocol.js';
import type { Contender, Operation } from './contenders.js';

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

/**
 * The children each server needs: `processes`, and two at least for one whose routes share a CPU window (the baseline
 * and the references on its server, an update and a create), as a child cannot time two contenders at once.
 */
export function processCounts(operations: readonly Operation[], processes: number): Map<ServerKind, number> {
  const counts = new Map<ServerKind, number>();
  for (const { contenders } of operations) {
    const shared = new Set(cpuWindows(contenders).flatMap(([first, second]) => (first.server === second.server ? [first.server] : [])));
    for (const { server } of contenders) counts.set(server, Math.max(counts.get(server) ?? 0, processes, shared.has(server) ? 2 : 1));
  }
  return counts;
}

/**
 * Whose turn it is in each side's server, for a window in a round (`turn`, counted over its children): the next child
 * for the second side when both are routes of one server, so each runs in a child of its own and they swap each round.
 */
export function windowTurns([first, second]: CpuWindow, turn: number): [number, number] {
  return [turn, first.server === second.server ? turn + 1 : turn];
}
