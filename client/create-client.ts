import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { exactIntegerFetch, int64Transformer } from './int64-links.js';

export interface PlantStoreClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** One of the service's API tokens. */
  token: string;
  /** The fetch to send requests with; the global one by default. */
  fetch?: typeof globalThis.fetch;
}

/** The tRPC endpoint of the service at `url` (its `/trpc` path), for links an app composes itself. */
export const trpcUrl = (url: string) => `${url.replace(/\/+$/, '')}/trpc`;

/**
 * A typed tRPC client for the plant store:
 * `await createPlantStoreClient({ url, token }).createPlant.mutate({ id: 1, name: 'Monstera' })`.
 * Failures reject with a `TRPCClientError` whose `data.code` is the tRPC code (BAD_REQUEST, CONFLICT, ...).
 *
 * int64 values: pass a `number` up to ±(2^53−1) or a `bigint` (any size); every `id` comes back
 * as a `bigint`. On the wire they are plain JSON numbers, exact at any size, as a JSON client
 * sends them.
 */
export function createPlantStoreClient({ url, token, fetch = globalThis.fetch }: PlantStoreClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: trpcUrl(url),
        headers: { authorization: `Bearer ${token}` },
        transformer: int64Transformer,
        fetch: exactIntegerFetch(fetch),
      }),
    ],
  });
}
