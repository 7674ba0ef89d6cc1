import Fastify, { type FastifyInstance } from 'fastify';
import { NewPlantSchema } from '../schemas/plant.js';
import { bearerChallenge, createTokenVerifier } from '../server/auth/bearer-tokens.js';
import type { PlantStore } from '../server/plants/plant-store.js';

export interface BaselineOptions {
  tokens: readonly string[];
  store: PlantStore;
  logLevel: string;
  bodyLimit: number;
}

/**
 * The yardstick: `POST /plants` as a plain Fastify route doing the same work as the service's
 * (the same bearer-token check, the same zod schema, the same store call), with none of the
 * tRPC or trpc-to-openapi layers. Error bodies are kept to the interface's shape, but it has no
 * CORS, request ids or per-request log line.
 */
export function buildBaselineApp({ tokens, store, logLevel, bodyLimit }: BaselineOptions): FastifyInstance {
  const app = Fastify({ logger: { level: logLevel }, bodyLimit });
  const verifyToken = createTokenVerifier(tokens);

  app.post('/plants', async (request, reply) => {
    const auth = verifyToken(request.headers.authorization);
    if (auth.status !== 'valid') {
      return reply.code(401).header('www-authenticate', bearerChallenge(auth)).send({ error: 401, message: 'unauthorized' });
    }
    const parsed = NewPlantSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: 400, message: parsed.error.message });
    return store.create(parsed.data);
  });
  return app;
}
