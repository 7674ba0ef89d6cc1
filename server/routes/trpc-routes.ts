import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { authChallengeHeaders } from '../errors/rest-error.js';
import { logUnexpectedTrpcError, toTrpcErrorEnvelope } from '../errors/trpc-error.js';
import { createDirectCall } from '../fast-path/index.js';
import { utf8Body } from '../http/json-body.js';
import type { ApiRoutesOptions } from './api-routes.js';

export const TRPC_PREFIX = '/trpc';

/**
 * Serves every procedure over tRPC at /trpc, for `@trpc/client` and other tRPC clients, with
 * tRPC's Fastify request handler: the one its Fastify plugin mounts, mounted here so that the
 * strict UTF-8 body parser below stays (the plugin installs a lenient one). With the fast path
 * on, the common request (one call, a JSON body, no batching) is answered by the direct call
 * first; whatever it does not recognise goes to tRPC's handler.
 */
export async function registerTrpcRoutes(app: FastifyInstance, { router, createContext, fastPath }: ApiRoutesOptions) {
  const trpcOptions = {
    router,
    createContext: ({ req }) => createContext(req.headers.authorization),
    responseMeta: ({ errors }) => ({ headers: errors[0] ? authChallengeHeaders(errors[0]) : {} }),
    onError: logUnexpectedTrpcError,
  } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];
  const tryDirectCall = fastPath ? createDirectCall({ router, createContext, errorHeaders: authChallengeHeaders, onError: logUnexpectedTrpcError }) : undefined;

  await app.register(
    async (trpc) => {
      // Failures Fastify raises before tRPC runs (body too large, unknown procedure path) still
      // answer in tRPC's envelope here, so tRPC clients can read them.
      trpc.setErrorHandler(async (error, request, reply) => {
        const { statusCode, headers, body } = toTrpcErrorEnvelope(router, error, request);
        return reply.code(statusCode).headers(headers).send(body);
      });
      // tRPC reads JSON bodies itself, as text. Multipart is refused (415): no procedure takes
      // FormData, and tRPC's handler would answer it with an unlogged 500.
      trpc.removeContentTypeParser('application/json');
      trpc.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes: Buffer, done) => {
        const body = utf8Body(bytes);
        if (body instanceof Error) done(body);
        else done(null, body);
      });
      trpc.all<{ Params: { path: string } }>('/:path', async (req, res) => {
        const { path } = req.params;
        if (tryDirectCall && (await tryDirectCall(req, res, path))) return res;
        await fastifyRequestHandler({ ...trpcOptions, req, res, path });
        return res;
      });
    },
    { prefix: TRPC_PREFIX },
  );
}
