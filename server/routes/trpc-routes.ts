import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import { errorHeaders } from '../errors/rest-error.js';
import { logUnexpectedTrpcError } from '../errors/trpc-error.js';
import { readBodyText, type BodyStream } from '../http/body-text.js';
import { markTrpcInput, unmarkJsonText } from '../http/int64-edge.js';
import type { ApiRoutesOptions } from './api-routes.js';
import { GetOfHead } from './get-of-head.js';
import { entityTagHeaders } from './rest-answers.js';
import { judgeTokenBeforeBody } from './token-first.js';
import { batchRefusal, singleCallScope } from './trpc-request-checks.js';

export const TRPC_PREFIX = '/trpc';

const { FST_ERR_CTP_INVALID_MEDIA_TYPE: FastifyUnsupportedMediaType } = errorCodes;

/** tRPC's request handler, mounted here rather than by its plugin, which would install a lenient body parser. */
export async function registerTrpcRoutes(app: FastifyInstance, { router, createContext, serving, maxBatchSize }: ApiRoutesOptions) {
  const trpcOptions = {
    router,
    createContext: ({ req }) => createContext(req),
    // A single call's answer carries the ETag of the plant it answers, as REST's does; a batch's, none.
    responseMeta: ({ ctx, errors, info }) => ({
      headers: errors[0] ? errorHeaders(errors[0]) : info?.calls.length === 1 && ctx ? (entityTagHeaders(ctx) ?? {}) : {},
    }),
    onError: logUnexpectedTrpcError,
  } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'];

  await app.register(
    async (trpc) => {
      // A call's input, in a POST's body or a query's URL, is read only once the token admits the caller; a batch's calls
      // run at once, so one too large is refused then too, in the service's words.
      trpc.addHook(
        'onRequest',
        judgeTokenBeforeBody(createContext, singleCallScope(router), { after: (request) => batchRefusal(request, maxBatchSize) }),
      );
      // Integers beyond 2^53 go to tRPC as markers its transformer turns into bigints. Any other body is refused (415)
      // before tRPC runs, in the service's words: no procedure takes text or FormData.
      trpc.removeContentTypeParser(['application/json', 'text/plain']);
      trpc.addContentTypeParser('application/json', (request, payload: BodyStream, done) => {
        readBodyText(request, payload, (error, body = '') => {
          if (error) done(error);
          else done(...markedBody(body));
        });
      });
      // Answers written by tRPC's transformer and JSON.stringify (its handler's fetch Response, or the fast path's text):
      // sent as whole text, `Vary` kept, with the markers of a runtime without `JSON.rawJSON` written back. A streamed
      // batch (JSON lines) is sent whole too, so its framing is Fastify's: its length, not the stream's chunked encoding.
      trpc.addHook('onSend', (_request, reply, payload, done) => {
        if (!isWholeResponse(payload)) {
          done(null, typeof payload === 'string' ? unmarkJsonText(payload) : payload);
          return;
        }
        payload.text().then(
          (text) => {
            reply.code(payload.status);
            payload.headers.forEach((value, name) => {
              if (name === 'vary') appendVary(reply, value);
              else if (!FRAMING_HEADERS.has(name)) void reply.header(name, value);
            });
            const type = payload.headers.get('content-type');
            if (type?.startsWith('application/json')) done(null, unmarkJsonText(text));
            else {
              // tRPC writes some refusals (a batch mixing mutations and queries) as JSON under fetch's default label.
              if (type?.startsWith('text/plain') && text.startsWith('{"error":')) void reply.type('application/json');
              done(null, text);
            }
          },
          (error: unknown) => {
            done(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
      const stockHandler = async (req: FastifyRequest, res: FastifyReply, path: string) => {
        if (req.method === 'HEAD') return res.send(await answerHeadAsGet(req));
        await fastifyRequestHandler({ ...trpcOptions, req, res, path });
        return res;
      };
      // tRPC's own fetch entry, given the GET a HEAD asks about.
      const answerHeadAsGet = (req: FastifyRequest) =>
        fetchRequestHandler({
          ...trpcOptions,
          endpoint: TRPC_PREFIX,
          req: new GetOfHead(req, req.url),
          createContext: () => createContext(req),
          onError: ({ error }) => {
            logUnexpectedTrpcError({ error, req });
          },
        });
      trpc.route<{ Params: { path: string } }>({
        method: ['GET', 'POST'],
        url: '/:path',
        // Either handler reads the URL as it starts: its input is marked, or refused (400) as a POST's body would be.
        handler: (req, res) => {
          // A POST with no Content-Type is refused as JSON: tRPC's own refusal comes labelled text/plain.
          if (req.method === 'POST' && req.headers['content-type'] === undefined) throw new FastifyUnsupportedMediaType();
          const { path } = req.params;
          return withMarkedQueryInput(req, () => serving.tryTrpcCall(req, res, path) ?? stockHandler(req, res, path));
        },
      });
    },
    { prefix: TRPC_PREFIX },
  );
}

/** How the Response would have been framed as a stream: the whole text Fastify sends is framed by its length. */
const FRAMING_HEADERS = new Set(['transfer-encoding', 'content-length', 'connection']);

/** tRPC's `Vary` beside the app's own (CORS varies by `Origin`), so that no cache serves one origin's answer to another. */
function appendVary(reply: FastifyReply, value: string): void {
  const current = reply.getHeader('vary');
  void reply.header('vary', current === undefined ? value : `${String(current)}, ${value}`);
}

/** An answer as a fetch Response, a streamed batch's JSON lines and tRPC's text refusals too; an event stream streams. */
function isWholeResponse(payload: unknown): payload is Response {
  return payload instanceof Response && payload.headers.get('content-type')?.startsWith('text/event-stream') !== true;
}

function markedBody(body: string): [Error | null, string?] {
  try {
    return [null, markTrpcInput(body, 'body')];
  } catch (error) {
    return [error as Error];
  }
}

/** The URL is read once as a handler starts, so it is put back right after: logs and messages quote what the client sent. */
function withMarkedQueryInput<T>(request: FastifyRequest, handle: () => T): T {
  const { raw } = request;
  const url = raw.url;
  const marked = url === undefined || (request.method !== 'GET' && request.method !== 'HEAD') ? url : markQueryInput(url);
  if (marked === url) return handle();
  raw.url = marked;
  try {
    return handle();
  } finally {
    raw.url = url;
  }
}

/** The URL itself when nothing needs marking; throws the 400 of bad input. */
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
