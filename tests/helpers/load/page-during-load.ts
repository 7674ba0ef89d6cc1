import { Agent } from 'node:http';
import { checkListing, httpPages, pageThrough, sumChecks, type ListingCheck, type SentPlants } from '../plant-pages.js';
import type { LoadPlant } from './drive-load.js';

/** A client's page size: the largest `limit` there is. */
export const PAGE_LIMIT = 1000;

export interface PagingReport {
  /** Whole passes through the list made while the load ran (each started before it ended). */
  passes: number;
  pages: number;
  /** Summed over those passes; their `missing` counts plants answered 200 before the pass began. */
  duringLoad: ListingCheck;
  /** One pass after the load: every plant answered 200, each exactly once, nothing else. */
  atEnd: ListingCheck;
}

/**
 * A client paging through the whole store, again and again, while the load creates plants:
 * `GET /plants?limit=1000`, following the Link headers. A plant answered 200 before a pass
 * began must be in it (it was stored with the configured write concern, and keyset paging
 * cannot skip it); plants created during a pass may or may not be. No pass may list a plant
 * twice, out of order, or one never sent.
 */
export function pageDuringLoad(url: string, token: string, sent: readonly LoadPlant[]) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const getPage = httpPages(url, token, agent);
  const sentById: SentPlants = new Map(sent.map((plant) => [String(plant.id), plant]));
  const acknowledged = new Set<number>();
  const load = { running: true };
  const checks: ListingCheck[] = [];
  let pages = 0;
  // A failed page ends the passes; `finish` throws it.
  const passes = (async () => {
    while (load.running) {
      const required = [...acknowledged];
      const pass = await pageThrough(getPage, PAGE_LIMIT);
      pages += pass.pages;
      checks.push(checkListing(pass.plants, required, sentById));
    }
  })().then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    /** Call for each plant answered 200. */
    acknowledge: (id: number) => acknowledged.add(id),
    /** Once the load is over: waits for the pass under way, then pages through once more. */
    finish: async (okIds: readonly number[]): Promise<PagingReport> => {
      load.running = false;
      try {
        const failure = await passes;
        if (failure !== undefined) throw failure instanceof Error ? failure : new Error('paging failed', { cause: failure });
        const last = await pageThrough(getPage, PAGE_LIMIT);
        return { passes: checks.length, pages, duringLoad: sumChecks(checks), atEnd: checkListing(last.plants, okIds, sentById) };
      } finally {
        agent.destroy();
      }
    },
  };
}
