import { TRPCError } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  getErrorFromUnknown,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
  type NodeHTTPRequest,
  type OpenApiMethod,
  type OpenApiProcedure,
} from 'trpc-to-openapi';
import { ZodArray } from 'zod';
import type { RestMeta, RestOptions } from './options.js';
import type { RestOperation } from './rest-operations.js';
import { heldInputCall, runProcedure } from './run-procedure.js';

export interface RestDirectCallOptions<TContext> extends RestOptions<TContext> {
  createContext: (request: FastifyRequest) => TContext;
}

type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const identity = (output: unknown) => output;

/** A path with nothing for URL parsing to change: no percent-escapes, dots, empty segments or trailing slash. */
const PLAIN_PATH = /^(?:\/[\w~-]+)+$/;

/**
 * The handler of an operation's own Fastify route: a request with a plain path is answered as
 * trpc-to-openapi's node-http handler (`createOpenApiNodeHttpHandler`) answers it, without
 * redoing per request what depends only on the operation; any other goes to `fallback`
 * (trpc-to-openapi's handler itself).
 *
 * Why: the handler parses the URL, finds the procedure by trying each operation's regular
 * expression, walks the input schema to switch on coercion, unwraps it and builds a caller proxy
 * on every request; together they cost more than the procedure itself.
 *
 * The route already names the procedure: Fastify matched the operation's path, and for a plain
 * path its parameters are the path's own text, as trpc-to-openapi's regular expression reads
 * them. trpc-to-openapi tries operations in the router's order, so an operation whose paths an
 * earlier operation of the same method can also match is left to `fallback` whole. The rest are
 * trpc-to-openapi's steps with its own exported pieces: its `getQuery` reads the query, its
 * `coerceSchema` has run on the input schema once, its `getErrorFromUnknown` turns a failure into
 * the error `onError` is given; the procedure runs with run-procedure.ts, as the handler's caller
 * does on the fast path. rest-routes.test.ts compares the answers with the stock plugin's.
 */
export function createRestDirectCall<TContext>(options: RestDirectCallOptions<TContext>, operations: readonly RestOperation[]) {
  return function directCallOf(operation: RestOperation, fallback: RouteHandler): RouteHandler {
    const shadowed = operations
      .slice(0, operations.indexOf(operation))
      .some((earlier) => earlier.method === operation.method && pathsOverlap(earlier.path, operation.path));
    if (shadowed) return fallback;
    const call = operationCall(operation, options);
    return (request, reply) => {
      const queryStart = request.url.indexOf('?');
      const pathname = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
      // A HEAD arrives here seen as a GET where the app answers HEAD as GET; any other method goes on.
      if (request.method !== operation.method || !PLAIN_PATH.test(pathname)) return fallback(request, reply);
      return call(request, reply, pathname, request.url.slice(pathname.length));
    };
  };
}

/** The call of one operation, with what the handler works out per request worked out here once. */
function operationCall<TContext>(
  operation: RestOperation,
  { createContext, onError, responseMeta, mapOutput = identity }: RestDirectCallOptions<TContext>,
) {
  const { procedure, procedurePath: path } = operation;
  const { type } = procedure._def;
  const method = operation.method as OpenApiMethod;
  const useBody = acceptsRequestBody(method);
  const { takesInput, arrayKeys } = inputPlan(procedure);

  /** A failure as the handler reports it: the app's onError rethrows, so its error handler answers. */
  const fail = (cause: unknown): never => {
    const error = getErrorFromUnknown(cause);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- trpc-to-openapi's own conversion: a TRPCError, or the error thrown when its name says it is one
    onError({ error });
    throw error;
  };

  /** The procedure's output written as the handler writes it: its status and headers from `responseMeta`, its JSON. */
  const answer = (reply: FastifyReply, ctx: TContext, output: unknown, pathname: string, search: string): FastifyReply => {
    let payload: string | undefined;
    let meta: RestMeta;
    try {
      const data = mapOutput(output);
      // For a plain path, the path and query are the request's own text, as the handler's `new URL()`
      // would give them (the query is only read back through URLSearchParams, which decodes both alike).
      meta = responseMeta({ ctx, data: [data], errors: [], info: { url: { pathname, search } } });
      payload = JSON.stringify(data);
    } catch (cause) {
      return fail(cause);
    }
    const status = meta.status ?? 200;
    void reply.code(status);
    // The handler sets it on every answer, and the app takes it off a 204 (request-hooks.ts).
    if (status !== 204) void reply.header('content-type', 'application/json');
    if (meta.headers) for (const [name, value] of Object.entries(meta.headers)) reply.header(name, value);
    return reply.send(payload);
  };

  // Not an async function, and the answer written in the runner's own `then`: fewer promises per call.
  return (request: FastifyRequest, reply: FastifyReply, pathname: string, search: string): Promise<FastifyReply> => {
    try {
      const contentType = request.headers['content-type'];
      if (useBody && !contentType?.startsWith('application/json')) {
        throw new TRPCError({
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header',
        });
      }
      const input = takesInput ? inputOf(request, useBody, search !== '', arrayKeys) : undefined;
      const ctx = createContext(request);
      return runProcedure(procedure, heldInputCall(ctx, input, path, type), (output) => answer(reply, ctx, output, pathname, search), fail);
    } catch (cause) {
      // On to `fail` a turn later, as a failure of the call would go.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever was thrown, as the handler's await would see it
      return Promise.reject(cause).catch(fail);
    }
  };
}

/**
 * The request's input as the handler builds it: the body (already parsed by Fastify) or the
 * query, then the path parameters over it; a single value for an array key wrapped in an array.
 */
function inputOf(request: FastifyRequest, useBody: boolean, hasQuery: boolean, arrayKeys: readonly string[]): Record<string, unknown> {
  const pathInput = request.params as Record<string, string>;
  if (useBody) return { ...(request.body as object), ...pathInput };
  // getQuery reads the query Fastify already parsed, as it does with Fastify's own request;
  // without a query string there is nothing for it to read (the common DELETE and GET by id).
  if (!hasQuery) return { ...pathInput };
  const input: Record<string, unknown> = { ...getQuery(request as unknown as NodeHTTPRequest, undefined as unknown as URL), ...pathInput };
  for (const key of arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  return input;
}

/** How the handler turns a request into the procedure's input: whether it takes one, which query keys are arrays. */
function inputPlan(procedure: OpenApiProcedure): { takesInput: boolean; arrayKeys: readonly string[] } {
  const { inputParser } = getInputOutputParsers(procedure);
  const schema = unwrapZodType(inputParser, true);
  const arrayKeys: string[] = [];
  if (zodSupportsCoerce && instanceofZodTypeObject(schema)) {
    for (const [key, shape] of Object.entries(schema.shape)) {
      if (shape instanceof ZodArray || (instanceofZodTypeOptional(shape) && shape.unwrap() instanceof ZodArray)) arrayKeys.push(key);
    }
    // The handler runs this on every request; it only sets flags, so once is the same.
    coerceSchema(schema);
  }
  return { takesInput: !instanceofZodTypeLikeVoid(schema), arrayKeys };
}

/**
 * Whether some path could match both OpenAPI paths as trpc-to-openapi matches them (its
 * `normalizePath`, case ignored, a `{parameter}` any segment): the same number of segments, each
 * pair equal or one holding a parameter.
 */
function pathsOverlap(a: string, b: string): boolean {
  const segmentsOf = (path: string) => normalizePath(path).toLowerCase().split('/');
  const [first, second] = [segmentsOf(a), segmentsOf(b)];
  return (
    first.length === second.length &&
    first.every((segment, index) => segment === second[index] || segment.includes('{') || second[index]?.includes('{') === true)
  );
}
