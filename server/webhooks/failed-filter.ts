import { loggedUrl } from '../logs/logged-url.js';

/** Which failed deliveries and missed changes an operator names: by webhook-id, by URL, or all. */
export interface FailedFilter {
  webhookId?: string | undefined;
  /** The URL as stored, exactly, or by its origin and path, as the CLI lists it (its query may hold a secret). */
  url?: string | undefined;
}

export function selects(filter: FailedFilter, entry: { webhookId: string; url: string }): boolean {
  return (
    (filter.webhookId === undefined || entry.webhookId === filter.webhookId) &&
    (filter.url === undefined || entry.url === filter.url || loggedUrl(entry.url) === filter.url)
  );
}
