import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { FastifyInstance } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { AuthError, type Context } from '../../routers/trpc.js';
import { bearerChallenge } from '../auth/bearer-tokens.js';
import { toErrorReply } from './error-reply.js';

export const TRPC_PREFIX = '/trpc';

interface TrpcRoutesOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  bodyLimit: number;
}

/** Serves every procedure over tRPC at /trpc, for `@trpc/client` and other tRPC clients. */
export async function registerTrpcRoutes(app: FastifyInstance, { router, createContext, bodyLimit }: TrpcRoutesOptions) {
  await app.register(async (trpc) => {
    // Failures Fastify raises before tRPC runs (body too large, unknown procedure path) still
    // answer in tRPC's envelope here, so tRPC clients can read them.
    trpc.setErrorHandler(async (error, request, reply) => {
      const { statusCode, message, headers } = toErrorReply(error, { id: request.id, method: request.method, url: request.url, bodyLimit });
      const code = trpcCodeFor(statusCode);
      return reply
        .code(statusCode)
        .headers(headers)
        .send({ error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: statusCode } } });
    });
    await trpc.register(fastifyTRPCPlugin, {
      prefix: TRPC_PREFIX,
      maxBodySize: bodyLimit,
      trpcOptions: {
        router,
        createContext: ({ req }) => createContext(req.headers.authorization),
        responseMeta: ({ errors }) => {
          const authError = errors.find((error) => error.cause instanceof AuthError)?.cause;
          return authError instanceof AuthError ? { headers: { 'www-authenticate': bearerChallenge(authError.auth) } } : {};
        },
        onError: ({ error, req }) => {
          if (getHTTPStatusCodeFromError(error) >= 500 && error.code !== 'SERVICE_UNAVAILABLE') {
            req.log.error({ err: error.cause ?? error }, 'tRPC procedure failed');
          }
        },
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });
}

const CODE_BY_STATUS: Partial<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  503: 'SERVICE_UNAVAILABLE',
};

function trpcCodeFor(statusCode: number): TRPC_ERROR_CODE_KEY {
  return CODE_BY_STATUS[statusCode] ?? (statusCode < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
}
