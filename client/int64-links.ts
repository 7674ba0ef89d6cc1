import { TRPCClientError } from '@trpc/client';
import { int64Problem } from '../schemas/int64.js';
import { int64Json } from '../schemas/int64-json.js';

/** tRPC's JSON-RPC code for BAD_REQUEST, as the service's error shape carries it. */
const BAD_REQUEST = -32600;

/** For links to the service, with `exactIntegerFetch()`: refuses an unsafe-integer `number`, already rounded to another id. */
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

function withBigintIds(output: unknown): unknown {
  for (const item of Array.isArray(output) ? (output as unknown[]) : [output]) {
    if (typeof item === 'object' && item !== null && 'id' in item && typeof item.id === 'number' && Number.isInteger(item.id)) {
      item.id = BigInt(item.id);
    }
  }
  return output;
}

/** Keeps int64s exact on the wire, where tRPC's JSON.parse would round them (and JSON.stringify lacks `JSON.rawJSON`). */
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
