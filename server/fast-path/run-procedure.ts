import { getTRPCErrorFromUnknown, TRPCError, type AnyTRPCProcedure, type ProcedureType } from '@trpc/server';
import { getParseFn, middlewareMarker, type Parser } from '@trpc/server/unstable-core-do-not-import';
import type { AppRouter } from '../../routers/app.js';

/**
 * Runs a tRPC procedure's middleware chain (token check, input parser, output parser, resolver)
 * exactly as tRPC's own `procedure(opts)` does, without its per-level object spreads.
 *
 * Why: tRPC (v11) builds each middleware's options with a generic object-spread helper that
 * defines every key through `Object.defineProperty`, twice per level; that is most of the time
 * of a call (bench/README.md). A middleware here receives the same fields with the same values,
 * `next` merges `ctx`, `input` and `getRawInput` as tRPC's does, a thrown error becomes a failed
 * result the same way, and tRPC's own input, output and resolver middlewares are run as the steps
 * below, which wait a microtask turn only where something is pending (a deletePlant call made 18
 * promises before, 9 now, store's included; bench/README.md). run-procedure.test.ts checks every
 * outcome against tRPC's own call.
 */

export interface ProcedureCall {
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  /**
   * The same raw input without waiting a turn, when the caller already holds it: it returns
   * what `getRawInput` would resolve to, or throws what it would reject with.
   */
  readRawInputNow?: () => unknown;
  path: string;
  type: ProcedureType;
  signal: AbortSignal | undefined;
  batchIndex: number;
}

/** A call whose raw input the caller already holds (REST's parsed input, an in-process caller's argument). */
export function heldInputCall(ctx: unknown, input: unknown, path: string, type: ProcedureType): ProcedureCall {
  return { ctx, getRawInput: async () => input, readRawInputNow: () => input, path, type, signal: undefined, batchIndex: 0 };
}

type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

type Middleware = ((opts: MiddlewareOptions) => Promise<MiddlewareResult>) & { _type?: string };

/** The parts of a procedure's definition tRPC's runner uses; `middlewares` is not in its public type. */
interface RunnableDefinition {
  middlewares: Middleware[];
  inputs: Parser[];
  meta: unknown;
  output?: Parser;
  resolver?: (opts: MiddlewareOptions) => unknown;
  experimental_caller: boolean;
}

/**
 * One level of the chain. `settles`: the step is one of ours below, which answers every failure
 * as a failed result and never rejects, so the level needs no rejection handler of its own.
 */
interface Step {
  run: Middleware;
  settles: boolean;
}

/** What the runner runs for a procedure: its middlewares, with tRPC's own input, output and resolver middlewares replaced. */
interface Plan {
  steps: Step[];
  meta: unknown;
}

/** Keyed by a symbol so that no middleware's options show it by name. */
const READ_NOW = Symbol('readRawInputNow');

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
    readNow: (() => unknown) | undefined,
  ) {
    this[READ_NOW] = readNow;
  }

  /** The call's `readRawInputNow`, for the input step; undefined once a middleware passes its own `getRawInput`. */
  readonly [READ_NOW]: (() => unknown) | undefined;
}

interface Level {
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  readNow: (() => unknown) | undefined;
  input: unknown;
}

/** What tRPC's runner makes of an error thrown (or a promise rejected) by a middleware. */
const failed = (cause: unknown) => ({ ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker }) as MiddlewareResult;

/**
 * Not an async function: a level is the middleware's own promise with one rejection handler,
 * not a second promise awaiting it (a few microtask turns less per level, same outcomes).
 */
function runFrom(index: number, plan: Plan, call: ProcedureCall, level: Level): Promise<MiddlewareResult> {
  try {
    const step = plan.steps[index];
    if (step === undefined) throw new TypeError('middleware is not a function');
    const next = (options?: NextOptions) =>
      runFrom(index + 1, plan, call, {
        ctx: options?.ctx ? { ...(level.ctx as object), ...options.ctx } : level.ctx,
        input: options && 'input' in options ? options.input : level.input,
        getRawInput: options?.getRawInput ?? level.getRawInput,
        readNow: options?.getRawInput ? undefined : level.readNow,
      });
    const options = new MiddlewareOptions(level.ctx, level.getRawInput, call.path, call.type, call.signal, call.batchIndex, plan.meta, level.input, next, level.readNow);
    const result = step.run(options);
    return step.settles ? result : Promise.resolve(result).catch(failed);
  } catch (cause) {
    return Promise.resolve(failed(cause));
  }
}

/**
 * `procedure(call)`, run as above; a procedure with a custom caller is left to tRPC. Not an async
 * function, for the reason `runFrom` is not; a throw is a rejection all the same.
 */
export function runProcedure(procedure: AnyTRPCProcedure, call: ProcedureCall): Promise<unknown> {
  try {
    const definition = procedure._def as unknown as RunnableDefinition;
    if (definition.experimental_caller) return Promise.resolve(procedure(call));
    return runFrom(0, planOf(definition), call, { ctx: call.ctx, getRawInput: call.getRawInput, readNow: call.readRawInputNow, input: undefined }).then(dataOf);
  } catch (cause) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever was thrown, as an async function rejects with it
    return Promise.reject(cause);
  }
}

/** The chain's data, or its error thrown, as tRPC's runner answers its result. */
function dataOf(result: MiddlewareResult): unknown {
  // As tRPC's runner: a middleware that answers nothing is a bug in that middleware.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- middlewares are user code
  if (!result) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' });
  if (!result.ok) throw result.error;
  return result.data;
}

const plans = new WeakMap<RunnableDefinition, Plan>();

function planOf(definition: RunnableDefinition): Plan {
  let plan = plans.get(definition);
  if (plan === undefined) {
    plan = { steps: stepsOf(definition), meta: definition.meta };
    plans.set(definition, plan);
  }
  return plan;
}

/**
 * The procedure's middlewares, with tRPC's own input, output and resolver middlewares replaced by
 * the steps below. tRPC adds one input middleware per `.input()`, in the order of `inputs`, allows
 * one `.output()`, whose parser it keeps in the definition, and ends the chain with its
 * `resolveMiddleware` around the definition's `resolver`; anything else is left as it is.
 */
function stepsOf({ middlewares, inputs, output, resolver }: RunnableDefinition): Step[] {
  const asIs = (middleware: Middleware): Step => ({ run: middleware, settles: false });
  const inputMiddlewares = middlewares.filter((middleware) => middleware._type === 'input');
  if (inputMiddlewares.length !== inputs.length) return middlewares.map(asIs);
  const last = middlewares.length - 1;
  let nextInput = 0;
  return middlewares.map((middleware, index) => {
    if (middleware._type === 'input') return inputStep(getParseFn(inputs[nextInput++] as Parser));
    if (middleware._type === 'output' && output !== undefined) return outputStep(getParseFn(output));
    if (index === last && middleware.name === 'resolveMiddleware' && resolver !== undefined) return resolverStep(resolver);
    return asIs(middleware);
  });
}

/**
 * tRPC's input middleware (`createInputMiddleware`) without its object-spread helper, and without
 * waiting a turn for input the caller already holds (`readRawInputNow`) or for a parse that has
 * already finished: the same parse function (`getParseFn` of the same parser), the same
 * BAD_REQUEST when parsing fails, the same merge with an earlier input, the raw input's own
 * failure passed on as it is.
 */
function inputStep(parse: (value: unknown) => unknown): Step {
  const nextWith = (options: MiddlewareOptions, parsed: unknown) =>
    options.next({ input: isObject(options.input) && isObject(parsed) ? { ...options.input, ...parsed } : parsed });
  const badInput = (cause: unknown) => failed(new TRPCError({ code: 'BAD_REQUEST', cause }));
  const fromRaw = (options: MiddlewareOptions, rawInput: unknown): Promise<MiddlewareResult> => {
    let parsed: unknown;
    try {
      parsed = parse(rawInput);
    } catch (cause) {
      return Promise.resolve(badInput(cause));
    }
    if (isThenable(parsed)) return Promise.resolve(parsed).then((value) => nextWith(options, value), badInput);
    return nextWith(options, parsed);
  };
  const run = (options: MiddlewareOptions): Promise<MiddlewareResult> => {
    const readNow = options[READ_NOW];
    // As `await`: a middleware's own getRawInput may answer a plain value.
    if (readNow === undefined) return Promise.resolve(options.getRawInput()).then((rawInput) => fromRaw(options, rawInput), failed);
    let rawInput: unknown;
    try {
      rawInput = readNow();
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
    return fromRaw(options, rawInput);
  };
  return { run, settles: true };
}

/**
 * tRPC's output middleware (`createOutputMiddleware`) without its object-spread helper, and not
 * an async function (one promise less): the same parse function, the same error when parsing
 * fails, and a copy of the result with the parsed data.
 */
function outputStep(parse: (value: unknown) => unknown): Step {
  const failedOutput = (cause: unknown) => failed(new TRPCError({ message: 'Output validation failed', code: 'INTERNAL_SERVER_ERROR', cause }));
  const run = ({ next }: MiddlewareOptions): Promise<MiddlewareResult> =>
    next().then((result) => {
      if (!result.ok) return result;
      let data: unknown;
      try {
        data = parse(result.data);
      } catch (cause) {
        return failedOutput(cause);
      }
      if (isThenable(data)) return Promise.resolve(data).then((parsed): MiddlewareResult => ({ ...result, data: parsed }), failedOutput);
      return { ...result, data };
    });
  return { run, settles: true };
}

/**
 * tRPC's `resolveMiddleware`, not an async function: the procedure's resolver called with the
 * options, its answer (awaited only when it is a promise) as the chain's successful result, a
 * throw or a rejection as a failed one.
 */
function resolverStep(resolver: (opts: MiddlewareOptions) => unknown): Step {
  const run = (options: MiddlewareOptions): Promise<MiddlewareResult> => {
    const succeeded = (data: unknown) => ({ marker: middlewareMarker, ok: true, data, ctx: options.ctx }) as MiddlewareResult;
    let data: unknown;
    try {
      data = resolver(options);
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
    return isThenable(data) ? Promise.resolve(data).then(succeeded, failed) : Promise.resolve(succeeded(data));
  };
  return { run, settles: true };
}

/** What `await` would wait for, as tRPC awaits every parse. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** tRPC's test for a plain object (not null, not an array). */
export const isObject = (value: unknown): value is object => !!value && !Array.isArray(value) && typeof value === 'object';

/** The router's procedures by path, for runners that look them up per request. */
export function proceduresOf(router: AppRouter): Map<string, AnyTRPCProcedure> {
  return new Map(Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>));
}

/**
 * `router.createCaller(ctx)` as trpc-to-openapi uses it (`caller[a][b](input)`, called unbound),
 * with the runner above in place of tRPC's: a procedure path gives a function of the input
 * (its output passed through `mapOutput`); anything else, the next level of a nested router.
 */
export function createRunnerCaller(procedures: ReadonlyMap<string, AnyTRPCProcedure>, mapOutput: (output: unknown) => unknown = (output) => output) {
  const level = (ctx: unknown, prefix: string): object =>
    new Proxy(
      {},
      {
        get: (_target, key) => {
          if (typeof key !== 'string') return undefined;
          const path = prefix === '' ? key : `${prefix}.${key}`;
          const procedure = procedures.get(path);
          if (procedure === undefined) return level(ctx, path);
          return async (input: unknown) => mapOutput(await runProcedure(procedure, heldInputCall(ctx, input, path, procedure._def.type)));
        },
      },
    );
  return (ctx: unknown) => level(ctx, '');
}
