import { createTRPCClient, httpLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '../routers/app.js';
import { int64Problem } from '../schemas/int64.js';
import { int64Json } from '../schemas/int64-json.js';

export interface PlantStoreClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** One of the service's API tokens. */
  token: string;
  /** The fetch to send requests with; the global one by default. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A typed tRPC client for the plant store:
 * `await createPlantStoreClient({ url, token }).createPlant.mutate({ id: 1, name: 'Monstera' })`.
 * Failures reject with a `TRPCClientError` whose `data.code` is the tRPC code (BAD_REQUEST, CONFLICT, ...).
 *
 * int64 values: a `number` up to ±(2^53−1), a `bigint` beyond; answers come back the same way.
 * On the wire they are plain JSON numbers, exact at any size, as a JSON client sends them.
 */
export function createPlantStoreClient({ url, token, fetch = globalThis.fetch }: PlantStoreClientOptions): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url.replace(/\/+$/, '')}/trpc`,
        headers: { authorization: `Bearer ${token}` },
        transformer: { input: { serialize: (input: unknown) => int64Json.writable(refuseRoundedNumbers(input, 'input')), deserialize: int64Json.revive }, output: int64Json.transformer },
        fetch: exactIntegerFetch(fetch),
      }),
    ],
  });
}

/**
 * A number beyond ±(2^53−1) was rounded before it got here: sent, it would name another plant.
 * It is refused as the service refuses it in process, saying to pass a bigint.
 */
function refuseRoundedNumbers(value: unknown, path: string): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) throw new RangeError(int64Problem(path, value));
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) refuseRoundedNumbers(item, key);
  }
  return value;
}

/**
 * tRPC reads answers with JSON.parse, which rounds an integer beyond 2^53: this fetch marks those
 * of each answer before tRPC parses them (schemas/int64-json.ts), and the transformer revives
 * them. tRPC writes inputs with JSON.stringify, which the transformer makes exact with
 * `JSON.rawJSON` where the runtime has it; elsewhere it hands bigints over as markers, which this
 * fetch writes as exact JSON numbers in bodies and in a query's `input`.
 */
function exactIntegerFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? int64Json.unmarkText(init.body) : init?.body;
    const response = await fetch(unmarkQueryInput(input), { ...init, body });
    const text = await response.text();
    return new Response(int64Json.markText(text), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function unmarkQueryInput(input: Parameters<typeof globalThis.fetch>[0]): Parameters<typeof globalThis.fetch>[0] {
  if (typeof input !== 'string' || !input.includes('input=')) return input;
  const url = new URL(input);
  const query = url.searchParams.get('input');
  if (query === null || !int64Json.hasMarkers(query)) return input;
  url.searchParams.set('input', int64Json.unmarkText(query));
  return url.toString();
}
