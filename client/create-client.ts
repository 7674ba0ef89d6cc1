import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '../routers/app.js';

export interface PlantStoreClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** One of the service's API tokens. */
  token: string;
}

/**
 * A typed tRPC client for the plant store:
 * `await createPlantStoreClient({ url, token }).createPlant.mutate({ id: 1, name: 'Monstera' })`.
 * Failures reject with a `TRPCClientError` whose `data.code` is the tRPC code (BAD_REQUEST, CONFLICT, ...).
 */
export function createPlantStoreClient({ url, token }: PlantStoreClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url.replace(/\/+$/, '')}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });
}
