import type { FastifyInstance } from 'fastify';
import { int64Json } from '../../schemas/int64-json.js';

/**
 * Writes the int64 markers of an answer (schemas/int64-json.ts) back as exact JSON numbers, for
 * every route: REST outputs, tRPC answers and the OpenAPI document's bounds. An answer without
 * markers costs one substring test.
 */
export function registerExactIntegers(app: FastifyInstance): void {
  app.addHook('onSend', (_request, _reply, payload, done) => {
    // unmarkText answers the text itself when it holds no marker.
    done(null, typeof payload === 'string' ? int64Json.unmarkText(payload) : payload);
  });
}
