import {
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  transformTRPCResponse,
  TRPCError,
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
  type TRPCDefaultErrorShape,
  type TRPCRootConfig,
} from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TrpcOptions } from './options.js';
import { isObject, isThenable, proceduresOf, runProcedure } from './run-procedure.js';

export interface DirectCallOptions<TContext extends object> extends TrpcOptions<TContext> {
  router: AnyTRPCRouter;
  createContext: (request: FastifyRequest) => TContext;
}

/**
 * The common tRPC request, answered without building a fetch `Request` and `Response`: a single
 * call of a query or a mutation, no batching, no streaming, either `POST /trpc/<path>` with a
 * JSON body and no query string (its big integers already marked by the /trpc body parser), or
 * `GET /trpc/<path>` whose one query parameter, if any, is `input` (JSON text, marked here as it
 * is read: the request's URL stays the client's).
 *
 * Why: tRPC's Fastify handler turns every request into a fetch `Request` and every answer into a
 * fetch `Response`, machinery that costs more than the procedure itself. This does what
 * `resolveResponse` does for such a request with tRPC's own pieces (the procedure's middlewares
 * and parsers via run-procedure.ts, `getTRPCErrorShape` and so the router's error formatter,
 * `transformTRPCResponse`, `getHTTPStatusCode`), so the answers are the same bytes with the same
 * status, for every procedure alike: the method tRPC accepts for the procedure's type, or its
 * METHOD_NOT_SUPPORTED answer. Anything else gets no answer here (undefined) and goes to tRPC's
 * stock handler.
 */
export function createDirectCall<TContext extends object>({
  router,
  createContext,
  errorHeaders,
  dataHeaders,
  onError,
  queryInput = identity,
}: DirectCallOptions<TContext>) {
  const config = router._def._config as TRPCRootConfig<RootTypes>;
  const deserialize = (json: unknown): unknown => config.transformer.input.deserialize(json);
  const parseBody = (text: string): unknown => deserialize(JSON.parse(text));
  const parseQueryInput = (text: string): unknown => deserialize(JSON.parse(queryInput(text)));
  const procedures = new Map([...proceduresOf(router)].filter(([, procedure]) => isSingleCallType(procedure._def.type)));

  /** An error answer, as tRPC's handler gives it: the router's error shape, status and headers. */
  const sendError = (
    request: FastifyRequest,
    reply: FastifyReply,
    cause: unknown,
    where: ErrorPlace,
    headers: Record<string, string> = NO_HEADERS,
  ): FastifyReply => {
    const error = getTRPCErrorFromUnknown(cause);
    onError({ error, req: request });
    const response = { error: getTRPCErrorShape({ config, error, ...where }) };
    const extra = errorHeaders(error);
    return send(
      reply,
      getHTTPStatusCode(response, [error]),
      JSON.stringify(transformTRPCResponse(config, response)),
      headers === NO_HEADERS ? extra : { ...headers, ...extra },
    );
  };

  /** A successful call's answer: tRPC's refusal of a stream-like result, or the data as JSON. */
  const sendData = (request: FastifyRequest, reply: FastifyReply, data: unknown, type: SingleCallType, ctx: TContext): FastifyReply => {
    if (isDataStream(data)) {
      // tRPC raises this outside the call, so its error shape names no path and no input.
      const error = new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink',
      });
      return sendError(request, reply, error, { type, path: undefined, input: undefined, ctx });
    }
    // What transformTRPCResponse makes of `{ result: { data } }`, without its three object spreads.
    const serialized: unknown = config.transformer.output.serialize(data);
    return send(reply, 200, JSON.stringify({ result: { data: serialized } }), dataHeaders?.(ctx) ?? NO_HEADERS);
  };

  /** tRPC's answer to a query that is not a GET or a mutation that is not a POST (without method override). */
  const refuseMethod = async (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    type: SingleCallType,
    ctx: TContext,
  ): Promise<FastifyReply> => {
    const allow = ACCEPTED_METHOD[type];
    const error = new TRPCError({
      code: 'METHOD_NOT_SUPPORTED',
      message: `Unsupported ${request.method}-request to ${type} procedure at path "${path}"`,
    });
    return sendError(request, reply, error, { type, path, input: undefined, ctx }, { allow });
  };

  /**
   * The answer to a call already known to be a single call of `procedure`. Not an async function:
   * the answer is written in the runner's own `then` (a promise and an await less per call).
   */
  function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    procedure: AnyTRPCProcedure,
    text: InputText,
  ): Promise<FastifyReply> {
    const type = procedure._def.type as SingleCallType;
    const input = new CallInput(text, text.fromBody ? parseBody : parseQueryInput);
    let ctx: TContext;
    try {
      ctx = createContext(request);
    } catch (cause) {
      // A turn later, as a failure of the call would go.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever was thrown, as an await would see it
      return Promise.reject(cause).catch((error: unknown) =>
        sendError(request, reply, error, { type, path, input: input.value, ctx: undefined }),
      );
    }
    if (request.method !== ACCEPTED_METHOD[type]) return refuseMethod(request, reply, path, type, ctx);
    // No signal, as with `createCaller`: no procedure here watches for a client going away.
    const call = { path, getRawInput: input.read, readRawInputNow: input.readNow, ctx, type, signal: undefined, batchIndex: 0 };
    return runProcedure(
      procedure,
      call,
      (data) => sendData(request, reply, data, type, ctx),
      (cause) => sendError(request, reply, cause, { type, path, input: input.value, ctx }),
    );
  }

  /**
   * The answer, when the request is a single call of one of the router's queries or mutations;
   * undefined, decided at once, when tRPC's own handler must answer it.
   */
  return function tryDirectCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> | undefined {
    const procedure = procedures.get(path);
    const text = procedure && singleCallInput(request);
    return procedure === undefined || text === undefined ? undefined : answer(request, reply, path, procedure, text);
  };
}

function send(reply: FastifyReply, status: number, payload: string, extraHeaders: Record<string, string>): FastifyReply {
  reply.code(status).headers(ANSWER_HEADERS);
  if (extraHeaders !== NO_HEADERS) reply.headers(extraHeaders);
  // The payload is already JSON: the identity serializer keeps Fastify from adding `; charset=utf-8`
  // to the content type, as tRPC answers plain `application/json`. Fastify's hooks are callbacks
  // here, so the answer is on its way when this returns.
  return reply.serializer(asIs).send(payload);
}

/** Any router's root types, as far as this code reads them (its error shape is only written out). */
export interface RootTypes {
  ctx: object;
  meta: object;
  errorShape: TRPCDefaultErrorShape;
  transformer: boolean;
}

type SingleCallType = 'query' | 'mutation';
const ACCEPTED_METHOD: Record<SingleCallType, string> = { query: 'GET', mutation: 'POST' };
const isSingleCallType = (type: string): type is SingleCallType => type === 'query' || type === 'mutation';

/** Where an error happened, as tRPC's error shape names it. */
interface ErrorPlace {
  type: SingleCallType;
  path: string | undefined;
  input: unknown;
  ctx: object | undefined;
}

/** The input text of a single call (with where it came from), or undefined when tRPC's own handler must answer. */
interface InputText {
  text: string;
  /**
   * A body has its byte-order mark dropped, as a fetch `Request`'s `text()` does, and is marked
   * already; a query parameter keeps its byte-order mark and is marked when it is read.
   */
  fromBody: boolean;
}

/**
 * The request's input text, when it is a plain single call: a POST with a JSON body and no query
 * string, or a GET with no body and no query parameter but `input`. Streaming (`trpc-accept`, an
 * `Accept` of JSON lines), batching, connection parameters, another content type or anything else
 * unusual answers undefined.
 */
function singleCallInput(request: FastifyRequest): InputText | undefined {
  const { body, headers, method, url } = request;
  if (headers['trpc-accept'] !== undefined || headers.accept?.includes('application/jsonl') === true) return undefined;
  if (method === 'POST') {
    if (typeof body !== 'string' || url.includes('?') || !isJson(headers['content-type'])) return undefined;
    return { text: body, fromBody: true };
  }
  if (method === 'GET') {
    const contentType = headers['content-type'];
    if (body !== undefined || (contentType !== undefined && !isJson(contentType))) return undefined;
    const text = queryInput(url);
    return text === undefined ? undefined : { text, fromBody: false };
  }
  return undefined;
}

/** Printable ASCII but `#`: text the WHATWG URL parser leaves as URLSearchParams reads it, as tRPC's `new URL()` does. */
const PLAIN_QUERY = /^[\x21\x22\x24-\x7e]*$/;

/** The `input` query parameter of a URL with no other parameter ('' when there is none), else undefined. */
function queryInput(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const query = url.slice(start + 1);
  if (!PLAIN_QUERY.test(query)) return undefined;
  let input = '';
  let count = 0;
  for (const [name, value] of new URLSearchParams(query)) {
    if (name !== 'input' || ++count > 1) return undefined;
    input = value;
  }
  return input;
}

const ANSWER_HEADERS = { vary: 'trpc-accept, accept', 'content-type': 'application/json' };
const NO_HEADERS: Record<string, string> = {};
const asIs = (payload: string) => payload;
const identity = (text: string) => text;

/**
 * The input of a single call, as tRPC reads it: the text (a body without a leading byte-order
 * mark), empty meaning no input, parsed once when the procedure asks; text that does not parse
 * is a BAD_REQUEST with the parser's message, and so is text the `queryInput` option refuses.
 * `value` is the input for error shapes: undefined unless it was read and parsed.
 */
class CallInput {
  value: unknown = undefined;
  private parsed = false;

  constructor(
    private readonly text: InputText,
    /** The text's JSON, deserialized by the router's transformer. */
    private readonly parse: (text: string) => unknown,
  ) {}

  /** The procedure's `getRawInput`. */
  readonly read = async (): Promise<unknown> => this.readNow();

  /** The same, without waiting a turn: the procedure's `readRawInputNow`. */
  readonly readNow = (): unknown => {
    if (this.parsed) return this.value;
    const { text: raw, fromBody } = this.text;
    const text = fromBody && raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
    try {
      this.value = text === '' ? undefined : this.parse(text);
    } catch (cause) {
      if (cause instanceof TRPCError) throw cause;
      throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
    }
    this.parsed = true;
    return this.value;
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
  // A loop over the own keys, as Object.values sees them, without building their array per answer.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (isObject(item) && (Symbol.asyncIterator in item || isThenable(item))) return true;
  }
  return false;
}
