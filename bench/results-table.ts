import type { StoreKind } from './child-protocol.js';
import type { OperationName } from './contenders.js';
import { median } from './paired-ratios.js';
import { cpuPaired, paired, type ContenderSummary } from './report.js';

/** One operation's summaries on one store, as the run measured them. */
export interface MeasuredOperation {
  store: StoreKind;
  operation: OperationName;
  summaries: ContenderSummary[];
}

/** What the run found besides the tables: memory, start-up and the target lines it printed. */
export interface RunSummary {
  machine: string;
  date: string;
  command: string;
  mongodb: string | undefined;
  memory: string | undefined;
  startup: string | undefined;
  targetLines: string[];
}

const STORE_TITLE: Record<StoreKind, string> = { noop: 'no-op', mongo: 'MongoDB' };

/**
 * bench/README.md's results section, in Markdown: one row per contender and one column per store and operation run.
 * No-op columns hold the server CPU per request ÷ the baseline's, read in the window both shared in each round
 * (the figure the targets judge by), then the median µs; MongoDB columns hold req/s ÷ the baseline's, paired too, as
 * the emulator's own CPU, on the same machine, dominates those rounds.
 */
export function formatResultsSection(measured: readonly MeasuredOperation[], run: RunSummary): string {
  const columns = measured.map(({ store, operation }) => `${STORE_TITLE[store]} ${operation}`);
  const rows = new Map<string, { rank: number; cells: string[] }>();
  measured.forEach(({ store, summaries }, column) => {
    const [baseline] = summaries;
    if (!baseline) return;
    for (const summary of summaries) {
      const row = summary.row ?? summary.label;
      const entry = rows.get(row) ?? { rank: rankOf(summary), cells: Array.from({ length: columns.length }, () => '') };
      entry.cells[column] =
        store === 'noop'
          ? `${cpuPaired(summary, baseline).median.toFixed(2)} (${Math.round(median(summary.rounds.map((round) => round.cpuMicrosPerRequest)))} µs)`
          : paired(summary, baseline, (round) => round.requestsPerSecond).median.toFixed(2);
      rows.set(row, entry);
    }
  });
  const missed = run.targetLines.filter((line) => line.includes('MISSED'));
  const verdicts =
    missed.length === 0
      ? `All ${run.targetLines.length} target lines were met.`
      : `${missed.length} of ${run.targetLines.length} target lines were MISSED:\n\n${missed.map((line) => `- ${line.trim()}`).join('\n')}`;
  return [
    '## Results',
    '',
    `The latest figures, on ${run.machine}${run.mongodb ? `, MongoDB = ${run.mongodb}` : ''}, on ${run.date}, from \`${run.command}\`. ` +
      "No-op columns: server CPU per request at one set rate per operation ÷ the baseline's, both under load at once, the median over rounds of the ratio within each round, then the median µs (lower is better); " +
      "MongoDB columns: req/s ÷ the baseline's, paired the same way (higher is better).",
    '',
    `| contender | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    ...[...rows].sort(([, a], [, b]) => a.rank - b.rank).map(([row, { cells }]) => `| ${row} | ${cells.join(' | ')} |`),
    '',
    [run.memory, run.startup, verdicts].filter((sentence) => sentence !== undefined).join(' '),
  ].join('\n');
}

/** The baseline and the service's routes first, then the references, then the peers; else in the order the run met them. */
const rankOf = ({ reference, peer = false }: ContenderSummary): number => (peer ? 2 : reference ? 1 : 0);
