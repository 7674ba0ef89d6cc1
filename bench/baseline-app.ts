import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  buildApp,
  createTokenVerifier,
  DEFAULT_LIST_LIMIT,
  ListPlantsInputSchema,
  NewPlantSchema,
  PlantIdInputSchema,
  PlantSchema,
  StoredPlantSchema,
  UpdatePlantInputSchema,
  PlantNotFoundError,
  entityTagOf,
  type AppConfig,
  type AppOptions,
  type Plant,
  type PlantStore,
} from '../index.js';
import { createdPlant } from './peers/peer-work.js';

/** Where the baseline routes answer in the service's app (its `/plants` routes are the service's own). */
export const BASELINE_PATH = '/baseline/plants';

/**
 * The baseline delete in tRPC's wire shape (a POST whose JSON body names the id, answered 200 with
 * tRPC's `{"result":{}}`): what reading that body and writing that answer cost in plain Fastify,
 * the floor under `/trpc/deletePlant` that a REST delete (no body either way) does not have.
 */
export const BASELINE_DELETE_BY_BODY_PATH = `${BASELINE_PATH}/delete`;

/** The output schemas of listPlants and deletePlant, as their procedures declare them. */
const PlantListSchema = z.array(StoredPlantSchema);
const NoOutputSchema = z.void();

/**
 * The yardstick: the service's plant operations as plain Fastify routes doing the same work
 * (the same bearer-token check, the same zod schemas for input and output, the same int64 JSON
 * writing), added to the service's own app from `buildApp`, so they share the body parser, request
 * ids, CORS, graceful close, error shapes and store (the app's own MongoDB store, its client and
 * deadlines, unless `options` give a store), with none of the tRPC or trpc-to-openapi layers. So
 * the ratios measure those layers.
 */
export async function buildBaselineApp(config: AppConfig, options: AppOptions): Promise<FastifyInstance> {
  const app = await buildApp(config, options);
  const store = app.plantStore;
  const verifyToken = createTokenVerifier(config.apiTokens);
  app.post(BASELINE_PATH, createPlantRoute(verifyToken, store));
  app.get(BASELINE_PATH, listPlantsRoute(verifyToken, store));
  app.delete(`${BASELINE_PATH}/:id`, deletePlantRoute(verifyToken, store, REST_DELETE));
  app.patch(`${BASELINE_PATH}/:id`, updatePlantRoute(verifyToken, store));
  app.post(BASELINE_DELETE_BY_BODY_PATH, deletePlantRoute(verifyToken, store, BODY_DELETE));
  return app;
}

/**
 * For reference only: the create and delete routes in a bare Fastify app, without the app's common
 * parts (request ids, CORS, graceful close, the strict UTF-8 body check, the per-request log
 * controller). What those parts cost is the gap between this and the baseline above; the peers
 * are bare apps too.
 */
export function buildBareBaselineApp(config: AppConfig, store: PlantStore): FastifyInstance {
  const app = Fastify({ logger: { level: config.logLevel }, bodyLimit: config.http.bodyLimit });
  const verifyToken = createTokenVerifier(config.apiTokens);
  app.post('/plants', createPlantRoute(verifyToken, store));
  app.delete('/plants/:id', deletePlantRoute(verifyToken, store, REST_DELETE));
  // Only so the launcher can tell it is listening, as it does for the other servers.
  app.get('/healthz', async () => ({ status: 'ok' }));
  return app;
}

type TokenVerifier = ReturnType<typeof createTokenVerifier>;

/** True after answering 401 when the request's token is refused. */
function refusedToken(verifyToken: TokenVerifier, request: FastifyRequest, reply: FastifyReply): boolean {
  if (verifyToken(request.headers.authorization).status === 'valid') return false;
  void reply.code(401).header('www-authenticate', 'Bearer').send({ error: 401, message: 'unauthorized' });
  return true;
}

const badRequest = (reply: FastifyReply, error: Error) => reply.code(400).send({ error: 400, message: error.message });

function createPlantRoute(verifyToken: TokenVerifier, store: PlantStore) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<Plant | FastifyReply> => {
    if (refusedToken(verifyToken, request, reply)) return reply;
    const input = NewPlantSchema.safeParse(request.body);
    if (!input.success) return badRequest(reply, input.error);
    const { plant, entityTag } = createdPlant(input.data.id, await store.create(input.data));
    void reply.header('etag', entityTag);
    return PlantSchema.parse(plant);
  };
}

/** `GET /plants?limit&after`: the page, its ids written exactly, and a Link to the next page while plants follow. */
function listPlantsRoute(verifyToken: TokenVerifier, store: PlantStore) {
  return async (request: FastifyRequest<{ Querystring: Record<string, string> }>, reply: FastifyReply): Promise<unknown> => {
    if (refusedToken(verifyToken, request, reply)) return reply;
    const input = ListPlantsInputSchema.safeParse(request.query);
    if (!input.success) return badRequest(reply, input.error);
    const limit = input.data.limit ?? DEFAULT_LIST_LIMIT;
    const { plants, more } = await store.list({ limit, after: input.data.after, tag: input.data.tag });
    const page = PlantListSchema.parse(plants);
    const last = page.at(-1);
    if (more && last) {
      const next = new URLSearchParams(request.query);
      next.set('limit', String(limit));
      next.set('after', String(last.id));
      void reply.header('link', `<${BASELINE_PATH}?${next.toString()}>; rel="next"`);
    }
    // As the service: the app's reply serializer writes the bigints exactly.
    return page;
  };
}

/** `PATCH /plants/{id}` with a merge patch: the plant as changed, its ids written exactly. */
function updatePlantRoute(verifyToken: TokenVerifier, store: PlantStore) {
  return async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply): Promise<unknown> => {
    if (refusedToken(verifyToken, request, reply)) return reply;
    const input = UpdatePlantInputSchema.safeParse({ ...(request.body as object), id: request.params.id });
    if (!input.success) return badRequest(reply, input.error);
    const { id, name, tag } = input.data;
    const changed = await store.update(id, { name, tag }).catch((error: unknown) => {
      if (error instanceof PlantNotFoundError) return undefined;
      throw error;
    });
    if (changed === undefined) return reply.code(404).send({ error: 404, message: `no plant with id ${id}` });
    // The output schema is strict: the plant without the store's revision, which its entity tag takes in.
    const plant = StoredPlantSchema.parse({ id: changed.id, name: changed.name, ...(changed.tag !== undefined && { tag: changed.tag }) });
    void reply.header('etag', entityTagOf(id, changed.revision ?? 0, plant));
    return plant;
  };
}

/** Where a delete finds the id, and what it answers when the plant was there. */
interface DeleteShape {
  input: (request: FastifyRequest) => unknown;
  deleted: (reply: FastifyReply) => unknown;
}

/** `DELETE /plants/{id}`: 204 when the plant was there, 404 when not. */
const REST_DELETE: DeleteShape = { input: (request) => request.params, deleted: (reply) => reply.code(204).send() };
/** `POST <BASELINE_DELETE_BY_BODY_PATH>` with `{"id": …}`: tRPC's empty result when the plant was there. */
const BODY_DELETE: DeleteShape = { input: (request) => request.body, deleted: () => ({ result: {} }) };

function deletePlantRoute(verifyToken: TokenVerifier, store: PlantStore, { input: inputOf, deleted }: DeleteShape) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    if (refusedToken(verifyToken, request, reply)) return reply;
    const input = PlantIdInputSchema.safeParse(inputOf(request));
    if (!input.success) return badRequest(reply, input.error);
    if (!(await store.delete(input.data.id))) return reply.code(404).send({ error: 404, message: `no plant with id ${input.data.id}` });
    NoOutputSchema.parse(undefined);
    return deleted(reply);
  };
}
