import type { TRPCError } from '@trpc/server';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { HTTP_STATUS_TRPC_ERROR_CODE } from 'trpc-to-openapi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { AuthError, type Context } from '../../routers/trpc.js';
import { bearerChallenge } from '../auth/bearer-tokens.js';
import { isUnexpected, toErrorReply } from './error-reply.js';
import { utf8Body } from './json-body.js';
import { createDirectCall } from './trpc-direct-call.js';

export const TRPC_PREFIX = '/trpc';

interface TrpcRoutesOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  bodyLimit: number;
}

/**
 * Serves every procedure over tRPC at /trpc, for `@trpc/client` and other tRPC clients.
 *
 * The common request (one mutation, a JSON body, no batching) is answered by a direct call
 * (trpc-direct-call.ts); every other request, and every request the direct call does not
 * recognise, goes to tRPC's own Fastify handler, as tRPC's Fastify plugin would send it.
 */
export async function registerTrpcRoutes(app: FastifyInstance, { router, createContext, bodyLimit }: TrpcRoutesOptions) {
  const onError = ({ error, req }: { error: TRPCError; req: FastifyRequest }) => {
    if (isUnexpected(error)) {
      req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
    }
  };
  const trpcOptions = {
    router,
    createContext: ({ req }) => createContext(req.headers.authorization),
    responseMeta: ({ errors }) => ({ headers: authChallengeHeaders(errors) }),
    onError,
  } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];
  const tryDirectCall = createDirectCall({ router, createContext, errorHeaders: authChallengeHeaders, onError });

  await app.register(
    async (trpc) => {
      // Failures Fastify raises before tRPC runs (body too large, unknown procedure path) still
      // answer in tRPC's envelope here, so tRPC clients can read them.
      trpc.setErrorHandler(async (error, request, reply) => {
        const { statusCode, message, headers } = toErrorReply(error, request, bodyLimit);
        const code = trpcCodeFor(statusCode);
        return reply
          .code(statusCode)
          .headers(headers)
          .send({ error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: statusCode } } });
      });
      // As tRPC's Fastify plugin does: tRPC reads JSON bodies itself. Multipart is not accepted
      // (415): no procedure takes FormData, and tRPC answered it with an unlogged 500.
      trpc.removeContentTypeParser('application/json');
      trpc.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, bytes: Buffer, done) => {
        const body = utf8Body(bytes);
        if (body instanceof Error) done(body);
        else done(null, body);
      });
      trpc.all<{ Params: { path: string } }>('/:path', async (req, res) => {
        const { path } = req.params;
        if (await tryDirectCall(req, res, path)) return res;
        await fastifyRequestHandler({ ...trpcOptions, req, res, path });
        return res;
      });
    },
    { prefix: TRPC_PREFIX },
  );
}

/** `WWW-Authenticate` for an answer that failed for want of a good token. */
function authChallengeHeaders(errors: readonly TRPCError[]): Record<string, string> {
  const authError = errors.find((error) => error.cause instanceof AuthError)?.cause;
  return authError instanceof AuthError ? { 'www-authenticate': bearerChallenge(authError.auth) } : {};
}

function trpcCodeFor(statusCode: number): TRPC_ERROR_CODE_KEY {
  return HTTP_STATUS_TRPC_ERROR_CODE[statusCode] ?? (statusCode < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
}
