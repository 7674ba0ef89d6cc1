import type { WebhookCheck } from './verify-webhooks.js';
import type { ListingCheck } from '../plant-pages.js';
import type { PagingReport } from './page-during-load.js';

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
  /** What a client paging through GET /plants saw, during the load and after it. */
  paging: PagingReport;
  peakRssBytes: number;
  /** The service's exit code after SIGTERM. */
  exitCode: number | null;
  /** With a webhook receiver: what it got. */
  webhooks?: WebhookCheck;
  serviceOutput: string;
}

/** What is wrong with a listing, in words; nothing when it held. */
function listingFailures(when: string, check: ListingCheck): (string | false)[] {
  return [
    check.missing > 0 && `${when}: ${check.missing} plants answered 200 were not listed`,
    check.duplicates > 0 && `${when}: ${check.duplicates} plants listed twice`,
    check.outOfOrder > 0 && `${when}: ${check.outOfOrder} plants listed out of ascending id order`,
    check.unknown > 0 && `${when}: ${check.unknown} plants listed that were never sent`,
    check.wrong > 0 && `${when}: ${check.wrong} plants listed not as sent`,
  ];
}

/**
 * Why the run failed; empty when it held: every plant answered 200 and stored once, as sent, and
 * listed exactly once by a client paging through the store, during the load and after it.
 */
export function loadFailures(report: LoadReport): string[] {
  const { paging } = report;
  return [
    report.serverErrors > 0 && `${report.serverErrors} answers were 5xx`,
    report.ok !== report.plants && `${report.plants - report.ok} plants were not answered 200`,
    report.missing > 0 && `${report.missing} plants answered 200 are missing from the database`,
    report.duplicates > 0 && `${report.duplicates} duplicate documents`,
    report.wrong > 0 && `${report.wrong} documents differ from what was sent`,
    report.stored !== report.ok && `${report.stored} documents stored for ${report.ok} plants answered 200`,
    report.exitCode !== 0 && `the service exited with ${String(report.exitCode)} after SIGTERM`,
    paging.passes === 0 && 'no pass through GET /plants was made during the load',
    ...listingFailures('paging during the load', paging.duringLoad),
    ...listingFailures('paging after the load', paging.atEnd),
    paging.atEnd.listed !== report.ok && `paging after the load listed ${paging.atEnd.listed} plants for ${report.ok} answered 200`,
    ...(report.webhooks ? webhookFailures(report.webhooks) : []),
  ].filter((failure): failure is string => typeof failure === 'string');
}

function webhookFailures(check: WebhookCheck): (string | false)[] {
  return [
    check.missing > 0 && `${check.missing} acknowledged plants' events never arrived`,
    check.duplicates > 0 && `${check.duplicates} events arrived more than once`,
    check.unverified > 0 && `${check.unverified} webhook requests failed signature verification`,
    check.wrong > 0 && `${check.wrong} webhook bodies differ from the plant sent`,
  ];
}

export function formatLoadReport(report: LoadReport): string {
  const others =
    Object.entries(report.others)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ') || 'none';
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
    `  paging during load   ${report.paging.passes} passes, ${report.paging.pages} pages of up to 1000: ${formatListing(report.paging.duringLoad)}`,
    `  paging after load    ${formatListing(report.paging.atEnd)}`,
    `  service peak RSS     ${(report.peakRssBytes / 1024 / 1024).toFixed(1)} MiB`,
    `  exit after SIGTERM   ${String(report.exitCode)}`,
    ...(report.webhooks ? formatWebhookCheck(report.webhooks) : []),
  ].join('\n');
}

function formatWebhookCheck(check: WebhookCheck): string[] {
  return [
    `  webhooks received    ${check.received}, all in ${(check.drainMs / 1000).toFixed(1)} s after the last 200`,
    `  events missing       ${check.missing}`,
    `  events duplicated    ${check.duplicates}`,
    `  signatures refused   ${check.unverified}`,
    `  bodies not as sent   ${check.wrong}`,
  ];
}

function formatListing(check: ListingCheck): string {
  return `${check.listed} listed, ${check.missing} missing, ${check.duplicates} duplicates, ${check.outOfOrder} out of order, ${check.unknown} unknown, ${check.wrong} not as sent`;
}
