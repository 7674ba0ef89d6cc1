import { int64Json } from '../../schemas/int64-json.js';

/**
 * An answer's int64 markers (schemas/int64-json.ts) written back as exact JSON numbers, for every
 * route: REST outputs, tRPC answers and the OpenAPI document's bounds. An answer without markers
 * costs one substring test; one that is not text is left as it is.
 */
export function exactIntegers(payload: unknown): unknown {
  // unmarkText answers the text itself when it holds no marker.
  return typeof payload === 'string' ? int64Json.unmarkText(payload) : payload;
}
