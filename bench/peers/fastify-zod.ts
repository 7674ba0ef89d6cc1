import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createTokenVerifier, ErrorSchema, ListPlantsInputSchema, NewPlantSchema, PlantIdInputSchema, PlantSchema } from '../../index.js';
import {
  createdPlant,
  errorBody,
  issuesMessage,
  nextPageLink,
  noPlant,
  pageLimit,
  PlantListSchema,
  UNAUTHORIZED,
  type StartPeer,
} from './peer-work.js';

/**
 * Peer: Fastify with fastify-type-provider-zod, as its README sets it up: its validator and
 * serializer compilers, the zod schemas on each route (`body`/`querystring`/`params` and
 * `response`), errors shaped in Fastify's error handler. The token is checked in an
 * `onRequest` hook, Fastify's place for authentication.
 */
export const startFastifyZodPeer: StartPeer = async (config, store) => {
  const verifyToken = createTokenVerifier(config.apiTokens);
  const app = Fastify({ logger: { level: config.logLevel }, bodyLimit: config.http.bodyLimit });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error))
      return reply.code(400).send(errorBody(400, issuesMessage({ issues: error.validation })));
    const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    return reply.code(status).send(errorBody(status, status === 500 ? 'internal server error' : error.message));
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url}`)));

  const routes = app.withTypeProvider<ZodTypeProvider>();
  const authenticated = {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      if (verifyToken(request.headers.authorization).status !== 'valid')
        await reply.code(401).header('www-authenticate', 'Bearer').send(UNAUTHORIZED);
    },
  };

  routes.post('/plants', { ...authenticated, schema: { body: NewPlantSchema, response: { 200: PlantSchema } } }, async (request, reply) => {
    const { plant, entityTag } = createdPlant(request.body.id, await store.create(request.body));
    void reply.header('etag', entityTag);
    return plant;
  });

  routes.get(
    '/plants',
    { ...authenticated, schema: { querystring: ListPlantsInputSchema, response: { 200: PlantListSchema } } },
    async (request, reply) => {
      const limit = pageLimit(request.query.limit);
      const { plants, more } = await store.list({ limit, after: request.query.after });
      const link = nextPageLink('/plants', limit, plants, more);
      if (link !== undefined) void reply.header('link', link);
      return plants;
    },
  );

  routes.delete(
    '/plants/:id',
    { ...authenticated, schema: { params: PlantIdInputSchema, response: { 204: z.void(), 404: ErrorSchema } } },
    async (request, reply) => {
      if (!(await store.delete(request.params.id))) return reply.code(404).send(noPlant(request.params.id));
      return reply.code(204).send();
    },
  );

  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ host: config.host, port: config.port });
  return { close: () => app.close() };
};
