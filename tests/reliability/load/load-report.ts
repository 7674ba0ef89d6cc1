/** The figures one load run measured. */
export interface LoadReport {
  plants: number;
  concurrency: number;
  sent: number;
  ok: number;
  others: Record<string, number>;
  serverErrors: number;
  elapsedMs: number;
  stored: number;
  missing: number;
  duplicates: number;
  wrong: number;
  peakRssBytes: number;
  /** The service's exit code after SIGTERM. */
  exitCode: number | null;
  serviceOutput: string;
}

/** Why the run failed; empty when it held: every plant answered 200 and stored once, as sent. */
export function loadFailures(report: LoadReport): string[] {
  return [
    report.serverErrors > 0 && `${report.serverErrors} answers were 5xx`,
    report.ok !== report.plants && `${report.plants - report.ok} plants were not answered 200`,
    report.missing > 0 && `${report.missing} plants answered 200 are missing from the database`,
    report.duplicates > 0 && `${report.duplicates} duplicate documents`,
    report.wrong > 0 && `${report.wrong} documents differ from what was sent`,
    report.stored !== report.ok && `${report.stored} documents stored for ${report.ok} plants answered 200`,
    report.exitCode !== 0 && `the service exited with ${String(report.exitCode)} after SIGTERM`,
  ].filter((failure): failure is string => typeof failure === 'string');
}

export function formatLoadReport(report: LoadReport): string {
  const others = Object.entries(report.others).map(([status, count]) => `${status}: ${count}`).join(', ') || 'none';
  const seconds = report.elapsedMs / 1000;
  return [
    `load: ${report.plants} plants, ${report.concurrency} concurrent clients, ${seconds.toFixed(1)} s (${Math.round(report.sent / seconds)} req/s)`,
    `  requests sent        ${report.sent}`,
    `  200                  ${report.ok}`,
    `  other statuses       ${others}`,
    `  5xx                  ${report.serverErrors}`,
    `  plants stored        ${report.stored}`,
    `  plants missing       ${report.missing}`,
    `  duplicates           ${report.duplicates}`,
    `  stored not as sent   ${report.wrong}`,
    `  service peak RSS     ${(report.peakRssBytes / 1024 / 1024).toFixed(1)} MiB`,
    `  exit after SIGTERM   ${String(report.exitCode)}`,
  ].join('\n');
}
