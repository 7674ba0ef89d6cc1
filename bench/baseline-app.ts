import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { buildApp, createTokenVerifier, NewPlantSchema, PlantSchema, type AppConfig, type Plant, type PlantStore } from '../index.js';

/** Where the baseline route answers in the service's app (its `POST /plants` is the service's own). */
export const BASELINE_PATH = '/baseline/plants';

/**
 * The yardstick: `POST /plants` as a plain Fastify route doing the same work as the service's
 * (the same bearer-token check, the same zod schemas for input and output, the same store
 * call), added to the service's own app from `buildApp`, so it shares the body parser, request
 * ids, CORS, graceful close and error shapes, with none of the tRPC or trpc-to-openapi layers.
 * So the ratios measure those layers.
 */
export async function buildBaselineApp(config: AppConfig, store: PlantStore): Promise<FastifyInstance> {
  const app = await buildApp(config, { store });
  app.post(BASELINE_PATH, createPlantRoute(config, store));
  return app;
}

/**
 * For reference only: the same route in a bare Fastify app, without the app's common parts
 * (request ids, CORS, graceful close, the strict UTF-8 body check, the per-request log controller).
 * What those parts cost is the gap between this and the baseline above.
 */
export function buildBareBaselineApp(config: AppConfig, store: PlantStore): FastifyInstance {
  const app = Fastify({ logger: { level: config.logLevel }, bodyLimit: config.http.bodyLimit });
  app.post('/plants', createPlantRoute(config, store));
  // Only so the launcher can tell it is listening, as it does for the other servers.
  app.get('/healthz', async () => ({ status: 'ok' }));
  return app;
}

function createPlantRoute(config: AppConfig, store: PlantStore) {
  const verifyToken = createTokenVerifier(config.apiTokens);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<Plant | FastifyReply> => {
    const auth = verifyToken(request.headers.authorization);
    if (auth.status !== 'valid') return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 401, message: 'unauthorized' });
    const input = NewPlantSchema.safeParse(request.body);
    if (!input.success) return reply.code(400).send({ error: 400, message: input.error.message });
    return PlantSchema.parse(await store.create(input.data));
  };
}
