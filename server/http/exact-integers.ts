import { int64Json } from '../../schemas/int64-json.js';

/**
 * An answer's int64 markers (schemas/int64-json.ts) written back as exact JSON numbers, for every
 * route: REST outputs, tRPC answers and the OpenAPI document's bounds. Only where answers can
 * hold markers (a runtime without `JSON.rawJSON`); there an answer without markers costs one
 * substring test, and one that is not text is left as it is. Elsewhere, the payload as it is.
 */
export const exactIntegers: (payload: unknown) => unknown = int64Json.writesMarkers ? unmarkPayload : (payload) => payload;

function unmarkPayload(payload: unknown): unknown {
  // unmarkText answers the text itself when it holds no marker.
  return typeof payload === 'string' ? int64Json.unmarkText(payload) : payload;
}
