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
import { answeredMethod } from './answered-method.js';
import { LazyAnswerSignal } from './answer-signal.js';
import type { RestMeta, RestOptions } from './options.js';
import type { RestOperation } from './rest-operations.js';
import { heldInputCall, procedureRunner } from './run-procedure.js';

/** The answer is written by the app's reply serializer, so no output mapping for a JSON.stringify of its own. */
export interface RestDirectCallOptions<TContext> extends Omit<RestOptions<TContext>, 'mapOutput'> {
  createContext: (request: FastifyRequest) => TContext;
}

type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

// No escapes, dots, empty segments or trailing slash for URL parsing to change: Fastify's params are trpc-to-openapi's.
const PLAIN_PATH = /^(?:\/[\w~-]+)+$/;

// trpc-to-openapi's handler redoes per request what depends only on the operation (URL parsing, procedure lookup,
// schema coercion, a caller proxy), costing more than the procedure; this does it once, with its exported pieces.
// trpc-to-openapi tries operations in the router's order, so one an earlier operation may shadow is left to it.
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
      if (answeredMethod(request.method) !== operation.method || !PLAIN_PATH.test(pathname)) return fallback(request, reply);
      return call(request, reply, pathname, request.url.slice(pathname.length));
    };
  };
}

function operationCall<TContext>(operation: RestOperation, { createContext, onError, responseMeta }: RestDirectCallOptions<TContext>) {
  const { procedure, procedurePath: path } = operation;
  const { type } = procedure._def;
  const method = operation.method as OpenApiMethod;
  const useBody = acceptsRequestBody(method);
  const { takesInput, arrayKeys } = inputPlan(procedure);
  const run = procedureRunner(procedure);

  // The app's onError rethrows, so its error handler answers.
  const fail = (cause: unknown): never => {
    const error = getErrorFromUnknown(cause);
    // trpc-to-openapi's own conversion: a TRPCError, or the error thrown when its name says it is one.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- as trpc-to-openapi converts
    onError({ error });
    throw error;
  };

  const answer = (reply: FastifyReply, ctx: TContext, output: unknown, pathname: string, search: string): FastifyReply => {
    let payload: ReturnType<FastifyReply['serialize']> | undefined;
    let meta: RestMeta;
    try {
      // For a plain path, the request's own text is what the handler's `new URL()` would give.
      meta = responseMeta({ ctx, data: [output], errors: [], info: { url: { pathname, search } } });
      // No output, no body: Fastify never hands the serializer undefined either.
      payload = output === undefined ? undefined : reply.serialize(output);
    } catch (cause) {
      return fail(cause);
    }
    const status = meta.status ?? 200;
    void reply.code(status);
    // The handler sets it on every answer, and the app's hooks take it off a 204.
    if (status !== 204) void reply.header('content-type', 'application/json');
    if (meta.headers) for (const [name, value] of Object.entries(meta.headers)) reply.header(name, value);
    return reply.send(payload);
  };

  // Not async, the answer written in the runner's own `then`: fewer promises per call.
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
      return run(
        heldInputCall(ctx, input, path, type, new LazyAnswerSignal(reply)),
        (output) => answer(reply, ctx, output, pathname, search),
        fail,
      );
    } catch (cause) {
      // On to `fail` a turn later, as a failure of the call would go: whatever was thrown, as the handler's await sees it.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever was thrown
      return Promise.reject(cause).catch(fail);
    }
  };
}

function inputOf(request: FastifyRequest, useBody: boolean, hasQuery: boolean, arrayKeys: readonly string[]): Record<string, unknown> {
  const pathInput = request.params as Record<string, string>;
  if (useBody) return bodyWithPath(request.body, pathInput);
  // getQuery reads the query Fastify already parsed (so no URL), as with Fastify's own request.
  if (!hasQuery) return { ...pathInput };
  const input: Record<string, unknown> = { ...getQuery(request as unknown as NodeHTTPRequest, undefined as unknown as URL), ...pathInput };
  for (const key of arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  return input;
}

/**
 * `{ ...body, ...pathInput }`, built so that V8 shares one hidden class between requests: an object spread from a parsed
 * body and then given more fields gets a class of its own each time, which makes every reader of the input (the input
 * parser first) miss its caches. `Object.assign` would take a `__proto__` key as the prototype, so such a body is spread.
 */
function bodyWithPath(body: unknown, pathInput: Record<string, string>): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Object.hasOwn(body, '__proto__')) return Object.assign({}, body, pathInput);
  return { ...(body as object), ...pathInput };
}

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

/** Whether some path could match both, as trpc-to-openapi matches (normalised, case ignored, a `{parameter}` any segment). */
function pathsOverlap(a: string, b: string): boolean {
  const segmentsOf = (path: string) => normalizePath(path).toLowerCase().split('/');
  const [first, second] = [segmentsOf(a), segmentsOf(b)];
  return (
    first.length === second.length &&
    first.every((segment, index) => segment === second[index] || segment.includes('{') || second[index]?.includes('{') === true)
  );
}
