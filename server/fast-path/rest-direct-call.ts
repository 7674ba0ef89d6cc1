import { TRPCError, type AnyTRPCProcedure } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  createProcedureCache,
  getErrorFromUnknown,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  unwrapZodType,
  zodSupportsCoerce,
  type NodeHTTPRequest,
  type OpenApiMethod,
  type OpenApiProcedure,
} from 'trpc-to-openapi';
import { ZodArray } from 'zod';
import type { AppRouter } from '../../routers/app.js';
import type { Context } from '../../routers/context.js';
import type { RestAnswer } from '../routes/rest-routes.js';
import { runProcedure } from './run-procedure.js';

export interface RestDirectCallOptions {
  router: AppRouter;
  createContext: (authorization: string | undefined) => Context;
  onError: (options: { error: TRPCError }) => void;
  responseMeta: (answer: RestAnswer) => { status?: number; headers?: Record<string, string> };
  mapOutput: (output: unknown) => unknown;
}

/**
 * How trpc-to-openapi's handler turns a request into a procedure's input, worked out once per
 * procedure instead of on every request: whether the input is void, which query keys are arrays.
 */
interface InputPlan {
  takesInput: boolean;
  /** Query keys whose schema is an array (or an optional one): a single value is wrapped. */
  arrayKeys: readonly string[];
}

/** A path with nothing for URL parsing to change: no percent-escapes, dots, empty segments or trailing slash. */
const PLAIN_PATH = /^(?:\/[\w~-]+)+$/;

/**
 * A REST request to an operation's own route, answered as trpc-to-openapi's node-http handler
 * (`createOpenApiNodeHttpHandler`) answers it, without redoing per request what depends only on
 * the procedure.
 *
 * Why: the handler parses the URL, walks the input schema to switch on coercion, unwraps it and
 * builds a caller proxy on every request; together they cost more than the procedure (profile in
 * bench/README.md). This runs the same steps with trpc-to-openapi's own exported pieces: its
 * procedure cache picks the procedure and the path parameters (`createProcedureCache`), its
 * `getQuery` reads the query, its `coerceSchema` has run on the input schema once, its
 * `getErrorFromUnknown` turns a failure into the error `onError` is given; the procedure runs
 * with run-procedure.ts, as the handler's caller does on the fast path. A request whose path is
 * not plain (escapes, dots, empty segments, a trailing slash), or names no operation, returns
 * `false` and goes to the handler itself. rest-routes.test.ts compares both with the stock plugin.
 */
export function createRestDirectCall({ router, createContext, onError, responseMeta, mapOutput }: RestDirectCallOptions) {
  const findProcedure = createProcedureCache(router);
  const plans = new Map<OpenApiProcedure, InputPlan>();
  const planOf = (procedure: OpenApiProcedure): InputPlan => {
    let plan = plans.get(procedure);
    if (plan === undefined) {
      plan = inputPlan(procedure);
      plans.set(procedure, plan);
    }
    return plan;
  };

  return async function tryRestDirectCall(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const queryStart = request.url.indexOf('?');
    const pathname = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    if (!PLAIN_PATH.test(pathname)) return false;
    // Fastify gives this handler only the methods of the operations' routes (and HEAD, which it adds).
    const method = request.method as OpenApiMethod;
    const found = findProcedure(method, pathname);
    if (found?.procedure === undefined) return false;
    const { procedure, path, type } = found.procedure;
    const plan = planOf(procedure);
    const search = request.url.slice(pathname.length);

    let ctx: Context | undefined;
    // For a plain path, the path and query are the request's own text, as the handler's `new URL()`
    // would give them (the query is only read back through URLSearchParams, which decodes both alike).
    const info = { url: { pathname, search } };
    try {
      const useBody = acceptsRequestBody(method);
      const contentType = request.headers['content-type'];
      if (useBody && !contentType?.startsWith('application/json')) {
        throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header' });
      }
      const input = plan.takesInput ? inputOf(request, useBody, search !== '', plan.arrayKeys, found.pathInput) : undefined;
      ctx = createContext(request.headers.authorization);
      const data = mapOutput(await runProcedure(procedure as unknown as AnyTRPCProcedure, { ctx, getRawInput: async () => input, path, type, signal: undefined, batchIndex: 0 }));
      const meta = responseMeta({ ctx, data: [data], errors: [], info });
      void reply.code(meta.status ?? 200).header('content-type', 'application/json');
      if (meta.headers) for (const [name, value] of Object.entries(meta.headers)) reply.header(name, value);
      await reply.send(JSON.stringify(data));
      return true;
    } catch (cause) {
      const error = getErrorFromUnknown(cause);
      // The app's onError rethrows, so its error handler answers, as it does for the handler.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- trpc-to-openapi's own conversion: a TRPCError, or the error thrown when its name says it is one
      onError({ error });
      throw error;
    }
  };
}

/**
 * The request's input as the handler builds it: the body (already parsed by Fastify) or the
 * query, then the path parameters over it; a single value for an array key wrapped in an array.
 */
function inputOf(request: FastifyRequest, useBody: boolean, hasQuery: boolean, arrayKeys: readonly string[], pathInput: Record<string, string>): Record<string, unknown> {
  if (useBody) return { ...(request.body as object), ...pathInput };
  // getQuery reads the query Fastify already parsed, as it does with Fastify's own request;
  // without a query string there is nothing for it to read (the common DELETE and GET by id).
  const query = hasQuery ? getQuery(request as unknown as NodeHTTPRequest, undefined as unknown as URL) : undefined;
  const input: Record<string, unknown> = { ...query, ...pathInput };
  for (const key of arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  return input;
}

function inputPlan(procedure: OpenApiProcedure): InputPlan {
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
