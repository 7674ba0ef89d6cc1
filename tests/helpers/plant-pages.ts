import { Agent, get } from 'node:http';
import { int64Json } from '../../schemas/int64-json.js';

/** A plant as `GET /plants` lists it; ids beyond 2^53 as bigints. */
export interface ListedPlant {
  id: number | bigint;
  name: string;
  tag?: string;
}

export interface Page {
  status: number;
  body: string;
  /** The Link header, if any. */
  link: string | undefined;
}

/** Fetches one page by its path and query (`/plants?limit=...`): over HTTP, or with `app.inject`. */
export type GetPage = (path: string) => Promise<Page>;

/**
 * Every plant, as a client pages: `GET /plants?limit=<limit>`, then each `Link: <...>; rel="next"`
 * until there is none. Any page that is not a 200, holds more than `limit` plants or has a
 * malformed Link throws.
 */
export async function pageThrough(getPage: GetPage, limit: number): Promise<{ plants: ListedPlant[]; pages: number }> {
  const plants: ListedPlant[] = [];
  let pages = 0;
  let path: string | undefined = `/plants?limit=${limit}`;
  while (path !== undefined) {
    const page = await getPage(path);
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}: ${page.body.slice(0, 200)}`);
    const listed = int64Json.parse(page.body);
    if (!Array.isArray(listed) || listed.length > limit)
      throw new Error(`GET ${path} answered ${page.body.slice(0, 200)} for a limit of ${limit}`);
    plants.push(...(listed as ListedPlant[]));
    pages += 1;
    path = nextPath(path, page.link);
  }
  return { plants, pages };
}

function nextPath(path: string, link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  const next = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
  if (next === undefined) throw new Error(`GET ${path}: unexpected Link header ${link}`);
  return next;
}

/** `GetPage` over node:http against a running service, with a bearer token. */
export function httpPages(baseUrl: string, token: string, agent = new Agent({ keepAlive: true, maxSockets: 1 })): GetPage {
  return (path) =>
    new Promise((resolve, reject) => {
      get(`${baseUrl}${path}`, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const { link } = response.headers;
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            link: typeof link === 'string' ? link : undefined,
          });
        });
        response.on('error', reject);
      })
        .on('timeout', function (this: { destroy: (error: Error) => void }) {
          this.destroy(new Error(`GET ${path} timed out`));
        })
        .on('error', reject);
    });
}

/** A plant as it was sent, by its id's digits. */
export type SentPlants = ReadonlyMap<string, { name: string; tag?: string | undefined }>;

/** How one pass through the list compares with what must be in it. */
export interface ListingCheck {
  listed: number;
  /** Required ids not listed. */
  missing: number;
  /** Listings beyond the first of one id. */
  duplicates: number;
  /** Plants listed at or below the id before them (the list is in strictly ascending id order). */
  outOfOrder: number;
  /** Ids listed that were never sent. */
  unknown: number;
  /** Plants listed with another name or tag than was sent. */
  wrong: number;
}

/** Checks a listing: each `required` id exactly once, nothing twice, ascending, only sent plants as sent. */
export function checkListing(listed: readonly ListedPlant[], required: Iterable<number | bigint>, sent: SentPlants): ListingCheck {
  const seen = new Set<string>();
  const check: ListingCheck = { listed: listed.length, missing: 0, duplicates: 0, outOfOrder: 0, unknown: 0, wrong: 0 };
  let previous: bigint | undefined;
  for (const plant of listed) {
    const key = String(plant.id);
    const id = BigInt(plant.id);
    if (seen.has(key)) check.duplicates += 1;
    seen.add(key);
    if (previous !== undefined && id <= previous) check.outOfOrder += 1;
    previous = id;
    const original = sent.get(key);
    if (original === undefined) check.unknown += 1;
    else if (original.name !== plant.name || original.tag !== plant.tag) check.wrong += 1;
  }
  for (const id of required) if (!seen.has(String(id))) check.missing += 1;
  return check;
}

/** The sum of several checks (passes through the list while plants were being created). */
export function sumChecks(checks: readonly ListingCheck[]): ListingCheck {
  const sum: ListingCheck = { listed: 0, missing: 0, duplicates: 0, outOfOrder: 0, unknown: 0, wrong: 0 };
  for (const check of checks) for (const key of Object.keys(sum) as (keyof ListingCheck)[]) sum[key] += check[key];
  return sum;
}
