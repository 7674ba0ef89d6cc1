import { getTRPCErrorFromUnknown, TRPCError, type AnyTRPCProcedure, type ProcedureType } from '@trpc/server';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import type { AppRouter } from '../../routers/app.js';

/**
 * Runs a tRPC procedure's middleware chain (token check, input parser, output parser, resolver)
 * exactly as tRPC's own `procedure(opts)` does, without its per-level object spreads.
 *
 * Why: tRPC (v11) builds each middleware's options with two calls of a generic object-spread
 * helper per level (`{...opts, meta, input, next}`, then `{...opts, ctx, input, getRawInput}`
 * for `next`), which define every key through `Object.defineProperty`. Profiled, those spreads
 * were 68% of an in-process `createPlant` call; this runner takes a call from about 18.5 µs to
 * about 4 µs. The options a middleware receives are the same fields with the same values
 * (`ctx`, `getRawInput`, `path`, `type`, `signal`, `batchIndex`, `meta`, `input`, `next`), `next`
 * merges `ctx`, `input` and `getRawInput` as tRPC's does, and a thrown error becomes a failed
 * result the same way. tests/perf/run-procedure.test.ts checks it against tRPC's own call.
 */

export interface ProcedureCall {
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  path: string;
  type: ProcedureType;
  signal: AbortSignal | undefined;
  batchIndex: number;
}

type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

/** The parts of a procedure's definition tRPC's runner uses; `middlewares` is not in its public type. */
interface RunnableDefinition {
  middlewares: ((opts: MiddlewareOptions) => Promise<MiddlewareResult>)[];
  meta: unknown;
  experimental_caller: boolean;
}

/** One middleware's options: a class, so every level shares one object shape (fast to build and read). */
class MiddlewareOptions {
  constructor(
    readonly ctx: unknown,
    readonly getRawInput: () => Promise<unknown>,
    readonly path: string,
    readonly type: ProcedureType,
    readonly signal: AbortSignal | undefined,
    readonly batchIndex: number,
    readonly meta: unknown,
    readonly input: unknown,
    readonly next: (options?: NextOptions) => Promise<MiddlewareResult>,
  ) {}
}

interface Level {
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  input: unknown;
}

async function runFrom(index: number, definition: RunnableDefinition, call: ProcedureCall, level: Level): Promise<MiddlewareResult> {
  try {
    const middleware = definition.middlewares[index];
    if (middleware === undefined) throw new TypeError('middleware is not a function');
    const next = (options?: NextOptions) =>
      runFrom(index + 1, definition, call, {
        ctx: options?.ctx ? { ...(level.ctx as object), ...options.ctx } : level.ctx,
        input: options && 'input' in options ? options.input : level.input,
        getRawInput: options?.getRawInput ?? level.getRawInput,
      });
    const options = new MiddlewareOptions(level.ctx, level.getRawInput, call.path, call.type, call.signal, call.batchIndex, definition.meta, level.input, next);
    return await middleware(options);
  } catch (cause) {
    return { ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker } as MiddlewareResult;
  }
}

/** `procedure(call)`, run as above; a procedure with a custom caller is left to tRPC. */
export async function runProcedure(procedure: AnyTRPCProcedure, call: ProcedureCall): Promise<unknown> {
  const definition = procedure._def as unknown as RunnableDefinition;
  if (definition.experimental_caller) return procedure(call);
  const result = await runFrom(0, definition, call, { ctx: call.ctx, getRawInput: call.getRawInput, input: undefined });
  // As tRPC's runner: a middleware that answers nothing is a bug in that middleware.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- middlewares are user code
  if (!result) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' });
  if (!result.ok) throw result.error;
  return result.data;
}

/** The router's procedures by path, for runners that look them up per request. */
export function proceduresOf(router: AppRouter): Map<string, AnyTRPCProcedure> {
  return new Map(Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>));
}

/**
 * `router.createCaller(ctx)` as trpc-to-openapi uses it (`caller[a][b](input)`, called unbound),
 * with the runner above in place of tRPC's: a procedure path gives a function of the input;
 * anything else, the next level of a nested router.
 */
export function createRunnerCaller(procedures: ReadonlyMap<string, AnyTRPCProcedure>) {
  const level = (ctx: unknown, prefix: string): object =>
    new Proxy(
      {},
      {
        get: (_target, key) => {
          if (typeof key !== 'string') return undefined;
          const path = prefix === '' ? key : `${prefix}.${key}`;
          const procedure = procedures.get(path);
          if (procedure === undefined) return level(ctx, path);
          return (input: unknown) =>
            runProcedure(procedure, { ctx, getRawInput: async () => input, path, type: procedure._def.type, signal: undefined, batchIndex: 0 });
        },
      },
    );
  return (ctx: unknown) => level(ctx, '');
}
