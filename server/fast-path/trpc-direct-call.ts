import { getTRPCErrorFromUnknown, getTRPCErrorShape, transformTRPCResponse, TRPCError, type AnyTRPCProcedure } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import { proceduresOf, runProcedure } from './run-procedure.js';

export interface DirectCallOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  /** Extra headers for an answer with this error (the same function the stock handler's responseMeta uses). */
  errorHeaders: (error: TRPCError) => Record<string, string>;
  onError: (opts: { error: TRPCError; req: FastifyRequest }) => void;
}

/**
 * The common tRPC request, answered without building a fetch `Request` and `Response`:
 * one mutation, `POST /trpc/<path>` with a JSON body, no batching, no streaming, no query string.
 *
 * Why: tRPC's Fastify handler turns every request into a fetch `Request` and every answer into a
 * fetch `Response`, machinery that costs more than the procedure itself. This does what
 * `resolveResponse` does for the common request with tRPC's own pieces (the procedure's
 * middlewares and parsers via run-procedure.ts, `getTRPCErrorShape` and so the router's error
 * formatter, `transformTRPCResponse`, `getHTTPStatusCode`), so the answers are the same bytes
 * with the same status. Anything else returns `false` and goes to tRPC's stock handler.
 */
export function createDirectCall({ router, createContext, errorHeaders, onError }: DirectCallOptions) {
  const config = router._def._config;
  const mutations = new Map<string, AnyTRPCProcedure>([...proceduresOf(router)].filter(([, procedure]) => procedure._def.type === 'mutation'));

  return async function tryDirectCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<boolean> {
    const { body, headers } = request;
    const procedure = mutations.get(path);
    if (
      procedure === undefined ||
      request.method !== 'POST' ||
      typeof body !== 'string' ||
      request.url.includes('?') ||
      headers['trpc-accept'] !== undefined ||
      headers.accept?.includes('application/jsonl') === true ||
      !isJson(headers['content-type'])
    ) {
      return false;
    }

    const readInput = createInputReader(body, (json) => config.transformer.input.deserialize(json));
    let ctx: Context | undefined;
    let status = 200;
    let payload: string;
    let extraHeaders = NO_HEADERS;
    try {
      ctx = createContext(headers.authorization);
      // No signal, as with `createCaller`: no procedure here watches for a client going away.
      const data = await runProcedure(procedure, { path, getRawInput: readInput.read, ctx, type: 'mutation', signal: undefined, batchIndex: 0 });
      if (isDataStream(data)) {
        throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink' });
      }
      // What transformTRPCResponse makes of `{ result: { data } }`, without its three object spreads.
      const serialized: unknown = config.transformer.output.serialize(data);
      payload = JSON.stringify({ result: { data: serialized } });
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      onError({ error, req: request });
      const shape = getTRPCErrorShape({ config, error, type: 'mutation', path, input: readInput.result(), ctx });
      const response = { error: shape };
      status = getHTTPStatusCode(response, [error]);
      extraHeaders = errorHeaders(error);
      payload = JSON.stringify(transformTRPCResponse(config, response));
    }
    reply.code(status).headers(ANSWER_HEADERS);
    if (extraHeaders !== NO_HEADERS) reply.headers(extraHeaders);
    // The payload is already JSON: the identity serializer keeps Fastify from adding `; charset=utf-8`
    // to the content type, as tRPC answers plain `application/json`.
    await reply.serializer(asIs).send(payload);
    return true;
  };
}

const ANSWER_HEADERS = { vary: 'trpc-accept, accept', 'content-type': 'application/json' };
const NO_HEADERS: Record<string, string> = {};
const asIs = (payload: string) => payload;

/**
 * The input of a single call, as tRPC reads it: the body as a fetch `Request`'s `text()` gives
 * it (without a leading byte-order mark), empty meaning no input, parsed once when the procedure
 * asks; a body that does not parse is a BAD_REQUEST with the parser's message. `result()` is
 * the input for error shapes: undefined unless it was read and parsed.
 */
function createInputReader(body: string, deserialize: (json: unknown) => unknown) {
  let input: unknown;
  let parsed = false;
  return {
    read: async (): Promise<unknown> => {
      if (parsed) return input;
      const text = body.startsWith('\uFEFF') ? body.slice(1) : body;
      try {
        input = text === '' ? undefined : deserialize(JSON.parse(text));
      } catch (cause) {
        if (cause instanceof TRPCError) throw cause;
        throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
      }
      parsed = true;
      return input;
    },
    result: (): unknown => input,
  };
}

/** tRPC's test: the media type, lower-cased and without parameters, is exactly application/json. */
function isJson(contentType: string | undefined): boolean {
  return contentType === 'application/json' || contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/** tRPC refuses an async iterable, or an object holding promises or async iterables, in a non-streaming answer. */
function isDataStream(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (Symbol.asyncIterator in value) return true;
  return Object.values(value).some((item) => isObject(item) && (Symbol.asyncIterator in item || typeof (item as { then?: unknown }).then === 'function'));
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
