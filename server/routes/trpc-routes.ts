import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { authChallengeHeaders } from '../errors/rest-error.js';
import { logUnexpectedTrpcError, toTrpcErrorEnvelope } from '../errors/trpc-error.js';
import { readBodyText, type BodyStream } from '../http/body-text.js';
import { noteFailureCause } from '../logs/failure-cause.js';
import { markTrpcInput, unmarkJsonText } from '../http/int64-edge.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { entityTagHeaders } from './rest-answers.js';

export const TRPC_PREFIX = '/trpc';

/**
 * Serves every procedure over tRPC at /trpc, for `@trpc/client` and other tRPC clients, with
 * tRPC's Fastify request handler: the one its Fastify plugin mounts, mounted here so that the
 * strict UTF-8 body parser below stays (the plugin installs a lenient one). With the fast path
 * on, the common request (one call: a POST with a JSON body, or a GET with at most an `input`
 * parameter; no batching) is answered by the direct call first; whatever it does not recognise
 * goes to tRPC's handler.
 */
export async function registerTrpcRoutes(app: FastifyInstance, { router, createContext, serving }: ApiRoutesOptions) {
  const trpcOptions = {
    router,
    createContext: ({ req }) => createContext(req),
    // A single call's answer carries the ETag of the plant it answers, as REST's does; a batch's, none.
    responseMeta: ({ ctx, errors, info }) => ({
      headers: errors[0] ? authChallengeHeaders(errors[0]) : info?.calls.length === 1 && ctx ? (entityTagHeaders(ctx) ?? {}) : {},
    }),
    onError: logUnexpectedTrpcError,
  } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];

  await app.register(
    async (trpc) => {
      // Failures Fastify raises before tRPC runs (body too large, unknown procedure path) still
      // answer in tRPC's envelope here, so tRPC clients can read them.
      trpc.setErrorHandler(async (error, request, reply) => {
        const { statusCode, headers, body } = toTrpcErrorEnvelope(router, error, request);
        if (statusCode >= 500) noteFailureCause(request, error);
        return reply.code(statusCode).headers(headers).send(body);
      });
      // tRPC reads JSON bodies itself, as text: integers beyond 2^53 are handed to it as markers
      // that the router's transformer turns into bigints. Multipart is
      // not accepted (415): no procedure takes FormData, and tRPC answered it with an unlogged 500.
      trpc.removeContentTypeParser('application/json');
      trpc.addContentTypeParser('application/json', (request, payload: BodyStream, done) => {
        readBodyText(request, payload, (error, body = '') => {
          if (error) done(error);
          else done(...markedBody(body));
        });
      });
      // tRPC's handler answers with a fetch Response, which the app's own int64 pass cannot read:
      // it is sent as whole text (with a Content-Length, as the direct call's answers), its markers
      // written back where answers can hold them (no JSON.rawJSON).
      trpc.addHook('onSend', (_request, reply, payload, done) => {
        if (!isJsonResponse(payload)) {
          done(null, payload);
          return;
        }
        payload.text().then(
          (text) => {
            reply.code(payload.status);
            payload.headers.forEach((value, name) => void reply.header(name, value));
            done(null, unmarkJsonText(text));
          },
          (error: unknown) => {
            done(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
      const stockHandler = async (req: FastifyRequest, res: FastifyReply, path: string) => {
        await withMarkedQueryInput(req, () => fastifyRequestHandler({ ...trpcOptions, req, res, path }));
        return res;
      };
      trpc.all<{ Params: { path: string } }>('/:path', (req, res) => {
        const { path } = req.params;
        return serving.tryTrpcCall(req, res, path) ?? stockHandler(req, res, path);
      });
    },
    { prefix: TRPC_PREFIX },
  );
}

/** A whole JSON answer as a fetch Response; streamed answers (JSON lines, events) are left to stream. */
function isJsonResponse(payload: unknown): payload is Response {
  return payload instanceof Response && payload.headers.get('content-type')?.startsWith('application/json') === true;
}

/** A body marked for tRPC, or its 400, as a content-type parser's `done` arguments. */
function markedBody(body: string): [Error | null, string?] {
  try {
    return [null, markTrpcInput(body, 'body')];
  } catch (error) {
    return [error as Error];
  }
}

/**
 * Runs tRPC's handler with the big integers of the URL's `input` parameter marked (tRPC reads it
 * on a GET only). The client's URL stays the request's: tRPC reads the URL once, as its handler
 * starts (it builds a fetch Request before it awaits anything), and the URL is put back right
 * after, so the request log and every message quote what the client sent. The direct call marks
 * the input as it reads it.
 */
function withMarkedQueryInput(request: FastifyRequest, handle: () => Promise<void>): Promise<void> {
  const { raw } = request;
  const url = raw.url;
  const marked = url === undefined || request.method !== 'GET' ? url : markQueryInput(url);
  if (marked === url) return handle();
  raw.url = marked;
  try {
    return handle();
  } finally {
    raw.url = url;
  }
}

/** The URL with the big integers of its `input` parameter marked; the URL itself when there are none. Throws the 400 of bad input. */
function markQueryInput(url: string): string {
  const start = url.indexOf('?');
  if (start === -1 || !url.includes('input=', start)) return url;
  const query = new URLSearchParams(url.slice(start + 1));
  const input = query.get('input');
  if (input === null) return url;
  const marked = markTrpcInput(input, 'query');
  if (marked === input) return url;
  query.set('input', marked);
  return `${url.slice(0, start + 1)}${query.toString()}`;
}
