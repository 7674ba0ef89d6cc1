// The load check of `npm run load`, shorter: the built service under 64 concurrent clients, while
// another client pages through GET /plants and a webhook receiver on loopback must get every
// acknowledged plant's event.
import { describe, expect, it, inject } from 'vitest';
import { formatLoadReport, loadFailures } from '../helpers/load/load-report.js';
import { runLoad } from '../helpers/load/run-load.js';

describe('load', () => {
  it('2,000 plants from 64 concurrent clients: all 200, all stored once, no 5xx; paging lists each acknowledged plant exactly once; every event delivered once', async () => {
    const report = await runLoad({ plants: 2_000, concurrency: 64, mongoUri: inject('mongoUri'), webhooks: true });
    console.log(formatLoadReport(report));
    expect(loadFailures(report), report.serviceOutput).toStrictEqual([]);
    expect(report).toMatchObject({
      sent: 2_000,
      ok: 2_000,
      serverErrors: 0,
      stored: 2_000,
      missing: 0,
      duplicates: 0,
      wrong: 0,
      exitCode: 0,
    });
    expect(report.peakRssBytes).toBeGreaterThan(0);
    expect(report.webhooks).toMatchObject({ received: 2_000, missing: 0, duplicates: 0, unverified: 0, wrong: 0 });
    // Passes while plants were being created saw some of them, and lost none acknowledged before they began.
    expect(report.paging.passes).toBeGreaterThan(0);
    expect(report.paging.duringLoad.listed).toBeGreaterThan(0);
    expect(report.paging.duringLoad).toMatchObject({ missing: 0, duplicates: 0, outOfOrder: 0, unknown: 0, wrong: 0 });
    expect(report.paging.atEnd).toStrictEqual({ listed: 2_000, missing: 0, duplicates: 0, outOfOrder: 0, unknown: 0, wrong: 0 });
  }, 120_000);
});
