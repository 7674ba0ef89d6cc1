import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { NewPlantSchema, PlantSchema, type Plant } from '../schemas/plant.js';
import { buildAppBase, createMongoStore, type AppConfig, type AppOverrides } from '../server/app.js';
import { bearerChallenge, createTokenVerifier, type TokenVerifier } from '../server/auth/bearer-tokens.js';
import type { PlantStore } from '../server/plants/plant-store.js';

/**
 * The yardstick: `POST /plants` as a plain Fastify route doing the same work as the service's
 * (the same bearer-token check, the same zod schemas for input and output, the same store
 * call), in the same app (`buildAppBase`: body parser, request ids, CORS, graceful close, error
 * shapes), with none of the tRPC or trpc-to-openapi layers. So the ratios measure those layers.
 */
export async function buildBaselineApp(config: AppConfig, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const { app, store, verifyToken } = await buildAppBase(config, overrides);
  app.post('/plants', createPlantRoute(verifyToken, store));
  return app;
}

/**
 * For reference only: the same route in a bare Fastify app, without the app's common parts
 * (request ids, CORS, graceful close, the strict UTF-8 body check, the per-request log controller).
 * What those parts cost is the gap between this and the baseline above.
 */
export function buildBareBaselineApp(config: AppConfig, overrides: AppOverrides = {}): FastifyInstance {
  const app = Fastify({ logger: { level: config.logLevel }, bodyLimit: config.http.bodyLimit });
  const store = overrides.store ?? createMongoStore(app, config);
  app.post('/plants', createPlantRoute(createTokenVerifier(config.apiTokens), store));
  return app;
}

function createPlantRoute(verifyToken: TokenVerifier, store: PlantStore) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<Plant | FastifyReply> => {
    const auth = verifyToken(request.headers.authorization);
    if (auth.status !== 'valid') {
      return reply.code(401).header('www-authenticate', bearerChallenge(auth)).send({ error: 401, message: 'unauthorized' });
    }
    const input = NewPlantSchema.safeParse(request.body);
    if (!input.success) return reply.code(400).send({ error: 400, message: input.error.message });
    return PlantSchema.parse(await store.create(input.data));
  };
}
