import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { OpenAPIHandler } from '@orpc/openapi/node';
import { ORPCError, os } from '@orpc/server';
import { z } from 'zod';
import { createTokenVerifier, ListPlantsInputSchema, NewPlantSchema, PlantIdInputSchema, PlantSchema } from '../../index.js';
import { createdPlant, errorBody, issuesMessage, nextPageLink, pageLimit, PlantListSchema, type StartPeer } from './peer-work.js';

/** The create's answer with its `ETag`, and the list's with its `Link`: oRPC's "detailed" output structure, its way to set headers. */
const CreatedOutputSchema = z.object({ headers: z.object({ etag: z.string() }), body: PlantSchema });
const PageOutputSchema = z.object({ headers: z.object({ link: z.string() }).partial(), body: PlantListSchema });

/** The service's error body for any oRPC error; a validation failure says what was wrong, as the service does. */
function encodeError(error: ORPCError<string, unknown>): unknown {
  const data = error.data as { issues?: { message: string }[] } | undefined;
  if (error.status === 400 && data?.issues) return errorBody(400, issuesMessage({ issues: data.issues }));
  return errorBody(error.status, error.status >= 500 ? 'internal server error' : error.message.toLowerCase());
}

/**
 * Peer: oRPC, as its docs set up a REST API: procedures built from `os` with `.route()`,
 * `.input()` and `.output()` zod schemas, the token checked by a middleware over the request
 * headers passed as context, served by its `OpenAPIHandler` on Node's http server; the error
 * body shaped with the handler's `customErrorResponseBodyEncoder`.
 */
export const startOrpcPeer: StartPeer = async (config, store) => {
  const verifyToken = createTokenVerifier(config.apiTokens);
  const base = os.$context<{ headers: IncomingHttpHeaders }>();
  const authenticated = base.use(async ({ context, next }) => {
    if (verifyToken(context.headers.authorization).status !== 'valid') throw new ORPCError('UNAUTHORIZED', { message: 'unauthorized' });
    return next();
  });

  const router = {
    healthz: base.route({ method: 'GET', path: '/healthz' }).handler(() => ({ status: 'ok' })),
    createPlant: authenticated
      .route({ method: 'POST', path: '/plants', outputStructure: 'detailed' })
      .input(NewPlantSchema)
      .output(CreatedOutputSchema)
      .handler(async ({ input }) => {
        const { plant, entityTag } = createdPlant(input.id, await store.create(input));
        return { headers: { etag: entityTag }, body: plant };
      }),
    listPlants: authenticated
      .route({ method: 'GET', path: '/plants', outputStructure: 'detailed' })
      .input(ListPlantsInputSchema)
      .output(PageOutputSchema)
      .handler(async ({ input }) => {
        const limit = pageLimit(input.limit);
        const { plants, more } = await store.list({ limit, after: input.after });
        const link = nextPageLink('/plants', limit, plants, more);
        return { headers: link === undefined ? {} : { link }, body: plants };
      }),
    deletePlant: authenticated
      .route({ method: 'DELETE', path: '/plants/{id}', successStatus: 204 })
      .input(PlantIdInputSchema)
      .output(z.void())
      .handler(async ({ input }) => {
        if (!(await store.delete(input.id))) throw new ORPCError('NOT_FOUND', { message: `no plant with id ${String(input.id)}` });
      }),
  };

  const handler = new OpenAPIHandler(router, { customErrorResponseBodyEncoder: encodeError });
  const server = createServer((request, response) => {
    void handler.handle(request, response, { context: { headers: request.headers } }).then(({ matched }) => {
      if (!matched)
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify(errorBody(404, `no route ${request.method ?? ''} ${request.url ?? ''}`)));
    });
  });
  server.listen(config.port, config.host);
  await once(server, 'listening');
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
