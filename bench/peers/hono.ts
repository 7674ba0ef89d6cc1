import { once } from 'node:events';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { createTokenVerifier, ListPlantsInputSchema, NewPlantSchema, PlantIdInputSchema, PlantSchema } from '../../index.js';
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

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

const createPlant = createRoute({
  method: 'post',
  path: '/plants',
  request: { body: { ...json(NewPlantSchema), required: true } },
  responses: { 200: { ...json(PlantSchema), description: 'The plant' } },
});

const listPlants = createRoute({
  method: 'get',
  path: '/plants',
  request: { query: ListPlantsInputSchema },
  responses: { 200: { ...json(PlantListSchema), description: 'A page of plants' } },
});

const deletePlant = createRoute({
  method: 'delete',
  path: '/plants/{id}',
  request: { params: PlantIdInputSchema },
  responses: { 204: { description: 'Deleted' }, 404: { description: 'No such plant' } },
});

/**
 * Peer: Hono with @hono/zod-openapi, served by @hono/node-server, as their READMEs set it up:
 * routes from `createRoute` with the zod schemas, `app.openapi(route, handler)`, validation
 * errors shaped by the `defaultHook`, the token checked by a middleware. @hono/zod-openapi
 * validates requests only (responses are typed, not checked), so the handlers parse their
 * output with the response schema, as the other stacks do.
 */
export const startHonoPeer: StartPeer = async (config, store) => {
  const verifyToken = createTokenVerifier(config.apiTokens);
  const app = new OpenAPIHono({
    defaultHook: (result, c) => (result.success ? undefined : c.json(errorBody(400, issuesMessage(result.error)), 400)),
  });
  app.onError((_error, c) => c.json(errorBody(500, 'internal server error'), 500));
  app.notFound((c) => c.json(errorBody(404, `no route ${c.req.method} ${c.req.path}`), 404));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.use('/plants/*', async (c, next) => {
    if (verifyToken(c.req.header('authorization')).status !== 'valid') return c.json(UNAUTHORIZED, 401, { 'www-authenticate': 'Bearer' });
    await next();
    return undefined;
  });

  app.openapi(createPlant, async (c) => {
    const input = c.req.valid('json');
    const { plant, entityTag } = createdPlant(input.id, await store.create(input));
    return c.json(PlantSchema.parse(plant), 200, { etag: entityTag });
  });

  app.openapi(listPlants, async (c) => {
    const query = c.req.valid('query');
    const limit = pageLimit(query.limit);
    const { plants, more } = await store.list({ limit, after: query.after });
    const page = PlantListSchema.parse(plants);
    const link = nextPageLink('/plants', limit, page, more);
    return c.json(page, 200, link === undefined ? {} : { link });
  });

  app.openapi(deletePlant, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await store.delete(id))) return c.json(noPlant(id), 404);
    return c.body(null, 204);
  });

  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }) as Server;
  if (!server.listening) await once(server, 'listening');
  return {
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
};
