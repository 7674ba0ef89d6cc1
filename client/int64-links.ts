import { TRPCClientError } from '@trpc/client';
import { int64Problem } from '../schemas/int64.js';
import { int64Json } from '../schemas/int64-json.js';

/** tRPC's JSON-RPC code for BAD_REQUEST, as the service's error shape carries it. */
const BAD_REQUEST = -32600;

/**
 * The data transformer of every link that talks to the service (`httpLink`, `httpBatchLink`),
 * with `exactIntegerFetch()` as their `fetch`:
 * - inputs: an int64 is a `number` up to ±(2^53−1) or a `bigint` (any size); a `number` beyond
 *   was rounded before it got here and would name another plant, so the call is refused with a
 *   `TRPCClientError` whose `data.code` is BAD_REQUEST, as the service refuses it;
 * - outputs: every plant's `id` is a `bigint`, whatever its size, so a page of plants holds one
 *   type of id (the `AppRouter` of this package says so).
 */
export const int64Transformer = {
  input: {
    serialize: (input: unknown): unknown => int64Json.writable(refuseRoundedNumbers(input, 'input')),
    deserialize: int64Json.revive,
  },
  output: {
    serialize: int64Json.writable,
    deserialize: (output: unknown): unknown => withBigintIds(int64Json.revive(output)),
  },
};

/**
 * A number beyond ±(2^53−1) was rounded before it got here: sent, it would name another plant.
 * It is refused as the service refuses it, in the same error shape, saying to pass a bigint.
 */
function refuseRoundedNumbers(value: unknown, path: string): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    const message = int64Problem(path, value);
    throw TRPCClientError.from({ error: { message, code: BAD_REQUEST, data: { code: 'BAD_REQUEST', httpStatus: 400 } } });
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) refuseRoundedNumbers(item, key);
  }
  return value;
}

/** The service's answers are a plant or a list of plants: each `id` becomes a bigint. */
function withBigintIds(output: unknown): unknown {
  for (const item of Array.isArray(output) ? (output as unknown[]) : [output]) {
    if (typeof item === 'object' && item !== null && 'id' in item && typeof item.id === 'number' && Number.isInteger(item.id)) {
      item.id = BigInt(item.id);
    }
  }
  return output;
}

/**
 * tRPC reads answers with JSON.parse, which rounds an integer beyond 2^53: this fetch marks those
 * of each answer before tRPC parses them (schemas/int64-json.ts), and the transformer revives
 * them. tRPC writes inputs with JSON.stringify, which the transformer makes exact with
 * `JSON.rawJSON` where the runtime has it; elsewhere it hands bigints over as markers, which this
 * fetch writes as exact JSON numbers in bodies and in a query's `input`.
 */
export function exactIntegerFetch(fetch: typeof globalThis.fetch = globalThis.fetch): typeof globalThis.fetch {
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
