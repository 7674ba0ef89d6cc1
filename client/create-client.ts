import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.js';
import { exactIntegerFetch, int64Transformer } from './int64-links.js';

export interface PlantStoreClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  token: string;
  fetch?: typeof globalThis.fetch;
}

/** The tRPC endpoint of the service at `url` (its `/trpc` path), for links an app composes itself. */
export const trpcUrl = (url: string) => `${url.replace(/\/+$/, '')}/trpc`;

/** A typed tRPC client for the plant store: pass an int64 as a safe-integer `number` or a `bigint`; ids come back as bigints. */
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
