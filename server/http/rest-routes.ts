import type { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/trpc.js';

interface RestRoutesOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
}

/**
 * Serves the procedures that have OpenAPI meta as REST (`POST /plants`), through trpc-to-openapi.
 * Errors are rethrown from `onError` so that the app's error handler, the one place that
 * shapes failures, answers them with the interface's `Error` body.
 */
export async function registerRestRoutes(app: FastifyInstance, { router, createContext }: RestRoutesOptions) {
  await app.register(async (rest) => {
    // JSON only: without this, Fastify's default text/plain parser would let text reach the procedure.
    rest.removeContentTypeParser('text/plain');
    rest.addHook('preValidation', async (request) => {
      // trpc-to-openapi spreads the body into an object; an array or a string would turn into
      // numbered fields. Refuse them here with a message that says what was wrong.
      if (request.method === 'POST' && !isJsonObject(request.body)) {
        throw Object.assign(new Error('the request body must be a JSON object'), { statusCode: 400 });
      }
    });
    await rest.register(fastifyTRPCOpenApiPlugin, {
      basePath: '/',
      router,
      createContext: ({ req }: { req: FastifyRequest }) => createContext(req.headers.authorization),
      onError: ({ error }: { error: TRPCError }) => {
        throw error;
      },
    });
  });
}

function isJsonObject(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}
