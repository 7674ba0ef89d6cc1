import {
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  transformTRPCResponse,
  TRPCError,
  type AnyTRPCRouter,
  type TRPCDefaultErrorShape,
  type TRPCRootConfig,
} from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredMethod } from './answered-method.js';
import { LazyAnswerSignal } from './answer-signal.js';
import type { TrpcOptions } from './options.js';
import {
  isObject,
  isThenable,
  procedureRunner,
  proceduresOf,
  type ProcedureCall,
  type ProcedureRunner,
  type SignalSource,
} from './run-procedure.js';

export interface DirectCallOptions<TContext extends object> extends TrpcOptions<TContext> {
  router: AnyTRPCRouter;
  createContext: (request: FastifyRequest) => TContext;
}

// tRPC's Fastify handler wraps every request and answer in fetch objects, costing more than the procedure. For a
// plain single call this does what `resolveResponse` does, with tRPC's own pieces, so the answers are the same bytes;
// anything else goes to the stock handler.
export function createDirectCall<TContext extends object>({
  router,
  createContext,
  errorHeaders,
  dataHeaders,
  onError,
}: DirectCallOptions<TContext>) {
  const config = router._def._config as TRPCRootConfig<RootTypes>;
  const deserialize = (json: unknown): unknown => config.transformer.input.deserialize(json);
  const parseInput = (text: string): unknown => deserialize(JSON.parse(text));
  const procedures = new Map<string, SingleCallProcedure>();
  for (const [path, procedure] of proceduresOf(router)) {
    const { type } = procedure._def;
    if (isSingleCallType(type)) procedures.set(path, { type, run: procedureRunner(procedure) });
  }

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
      message: `Unsupported ${answeredMethod(request.method)}-request to ${type} procedure at path "${path}"`,
    });
    return sendError(request, reply, error, { type, path, input: undefined, ctx }, { allow });
  };

  // Not async: the answer is written in the runner's own `then` (a promise and an await less per call).
  function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    { type, run }: SingleCallProcedure,
    text: InputText,
  ): Promise<FastifyReply> {
    const input = new CallInput(text, parseInput);
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
    if (answeredMethod(request.method) !== ACCEPTED_METHOD[type]) return refuseMethod(request, reply, path, type, ctx);
    const call = new TrpcCall(ctx, path, type, input, new LazyAnswerSignal(reply));
    return run(
      call,
      (data) => sendData(request, reply, data, type, ctx),
      (cause) => sendError(request, reply, cause, { type, path, input: input.value, ctx }),
    );
  }

  return function tryDirectCall(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> | undefined {
    const procedure = procedures.get(path);
    const text = procedure && singleCallInput(request);
    return procedure === undefined || text === undefined ? undefined : answer(request, reply, path, procedure, text);
  };
}

function send(reply: FastifyReply, status: number, payload: string, extraHeaders: Record<string, string>): FastifyReply {
  // After what the app already varies by (CORS: `Origin`), as tRPC's handler leaves it.
  const vary = reply.getHeader('vary');
  reply.code(status).headers(vary === undefined ? ANSWER_HEADERS : { ...ANSWER_HEADERS, vary: `${String(vary)}, ${TRPC_VARY}` });
  if (extraHeaders !== NO_HEADERS) reply.headers(extraHeaders);
  // The identity serializer keeps Fastify from adding `; charset=utf-8`: tRPC answers plain `application/json`.
  // Fastify's hooks are callbacks here, so the answer is on its way when this returns.
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
interface SingleCallProcedure {
  type: SingleCallType;
  run: ProcedureRunner;
}
const ACCEPTED_METHOD: Record<SingleCallType, string> = { query: 'GET', mutation: 'POST' };
const isSingleCallType = (type: string): type is SingleCallType => type === 'query' || type === 'mutation';

interface ErrorPlace {
  type: SingleCallType;
  path: string | undefined;
  input: unknown;
  ctx: object | undefined;
}

interface InputText {
  text: string;
  // A body loses its byte-order mark, as a fetch `Request`'s `text()` does; a query parameter keeps it. The app has
  // already marked the big integers of either, as it does for tRPC's own handler.
  fromBody: boolean;
}

function singleCallInput(request: FastifyRequest): InputText | undefined {
  const { body, headers, url } = request;
  const method = answeredMethod(request.method);
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

const TRPC_VARY = 'trpc-accept, accept';
const ANSWER_HEADERS = { vary: TRPC_VARY, 'content-type': 'application/json' };
const NO_HEADERS: Record<string, string> = {};
const asIs = (payload: string) => payload;

// Parsed only when the procedure asks, as tRPC reads it; `value`, for error shapes, stays undefined until then.
class CallInput {
  value: unknown = undefined;
  private parsed = false;

  constructor(
    private readonly text: InputText,
    private readonly parse: (text: string) => unknown,
  ) {}

  readonly read = async (): Promise<unknown> => this.readNow();

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

/** A call as tRPC's handler makes it: its signal aborts when the client goes away before the answer. */
class TrpcCall implements ProcedureCall {
  readonly batchIndex = 0;
  readonly getRawInput: () => Promise<unknown>;
  readonly readRawInputNow: () => unknown;

  constructor(
    readonly ctx: unknown,
    readonly path: string,
    readonly type: SingleCallType,
    input: CallInput,
    private readonly signals: SignalSource,
  ) {
    this.getRawInput = input.read;
    this.readRawInputNow = input.readNow;
  }

  // On the prototype, read only when a procedure asks: an accessor in an object literal is costly to build.
  get signal(): AbortSignal | undefined {
    return this.signals.signal;
  }
}

/** tRPC's test: the media type, lower-cased and without parameters, is exactly application/json. */
function isJson(contentType: string | undefined): boolean {
  return contentType === 'application/json' || contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/** tRPC refuses an async iterable, or an object holding promises or async iterables, in a non-streaming answer. */
function isDataStream(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (Symbol.asyncIterator in value) return true;
  // Object.values without building its array per answer.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (isObject(item) && (Symbol.asyncIterator in item || isThenable(item))) return true;
  }
  return false;
}
