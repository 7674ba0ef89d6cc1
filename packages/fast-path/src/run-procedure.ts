import { getTRPCErrorFromUnknown, TRPCError, type AnyTRPCProcedure, type AnyTRPCRouter, type ProcedureType } from '@trpc/server';
import { getParseFn, middlewareMarker, type Parser } from '@trpc/server/unstable-core-do-not-import';

/**
 * Runs a tRPC procedure's middleware chain (token check, input parser, output parser, resolver)
 * exactly as tRPC's own `procedure(opts)` does, without its per-level object spreads.
 *
 * Why: tRPC (v11) builds each middleware's options with a generic object-spread helper that
 * defines every key through `Object.defineProperty`, twice per level; that is most of the time
 * of a call. A middleware here receives the same fields with the same values,
 * `next` merges `ctx`, `input` and `getRawInput` as tRPC's does, a thrown error becomes a failed
 * result the same way, and tRPC's own input, output and resolver middlewares are run as the steps
 * below: they read the level directly (no options object, no `next` closure) and wait a microtask
 * turn only where something is pending, so a call makes fewer promises.
 * run-procedure.test.ts checks every outcome against tRPC's own call.
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
 * One level of the chain: the procedure's own middleware given its options, or one of our steps
 * below, which reads the level directly. `settles`: the step answers every failure as a failed
 * result and never rejects, so the level needs no rejection handler of its own.
 */
interface Step {
  /** Typed as tRPC types a middleware; a middleware of the procedure's may still answer a plain value or throw. */
  run: (chain: Chain, index: number, level: Level) => Promise<MiddlewareResult>;
  settles: boolean;
}

/** What the chain carries from one level to the next: tRPC's merged `ctx`, `input` and `getRawInput`. */
class Level {
  constructor(
    readonly ctx: unknown,
    readonly input: unknown,
    readonly getRawInput: () => Promise<unknown>,
    /** The call's `readRawInputNow`, for the input step; undefined once a middleware passes its own `getRawInput`. */
    readonly readNow: (() => unknown) | undefined,
  ) {}
}

/** A middleware's options: a class, so every level shares one object shape (fast to build and read). */
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

/** What tRPC's runner makes of an error thrown (or a promise rejected) by a middleware. */
const failed = (cause: unknown) => ({ ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker }) as MiddlewareResult;

/**
 * One run of a procedure's chain. Our steps read the level and go on with `runFrom`; only the
 * procedure's own middlewares and its resolver are given options and a `next`, built as tRPC's
 * runner builds them.
 */
class Chain {
  constructor(
    readonly steps: readonly Step[],
    readonly meta: unknown,
    readonly call: ProcedureCall,
  ) {}

  /**
   * The level's result, never a rejection. Not an async function: a level is the step's own
   * promise, with a rejection handler only where the step may reject.
   */
  runFrom(index: number, level: Level): Promise<MiddlewareResult> {
    try {
      const step = this.stepAt(index);
      const result = step.run(this, index, level);
      return step.settles ? result : Promise.resolve(result).catch(failed);
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
  }

  /** The first level's result as it comes, a rejection included: whoever waits for it handles that. */
  start(level: Level): Promise<MiddlewareResult> {
    return this.stepAt(0).run(this, 0, level);
  }

  stepAt(index: number): Step {
    const step = this.steps[index];
    if (step === undefined) throw new TypeError('middleware is not a function');
    return step;
  }

  /** A middleware's options at this level, with a `next` that merges what it is given, as tRPC's does. */
  optionsAt(index: number, level: Level): MiddlewareOptions {
    const next = (options?: NextOptions) =>
      this.runFrom(
        index + 1,
        // Without options (tRPC's type allows none; a null is taken alike), the same level goes on.
        !options
          ? level
          : new Level(
              options.ctx ? { ...(level.ctx as object), ...options.ctx } : level.ctx,
              'input' in options ? options.input : level.input,
              options.getRawInput ?? level.getRawInput,
              options.getRawInput ? undefined : level.readNow,
            ),
      );
    const { path, type, signal, batchIndex } = this.call;
    return new MiddlewareOptions(level.ctx, level.getRawInput, path, type, signal, batchIndex, this.meta, level.input, next);
  }
}

/**
 * `procedure(call)`, run as above: a promise of its data, rejected with its error. Given `onData`
 * and `onError`, the promise is theirs of the data or the error instead, one promise less for a
 * caller that goes on with the answer. A procedure with a custom caller is left to tRPC. Not an
 * async function, for the reason `runFrom` is not; a throw is a rejection all the same.
 */
export function runProcedure(procedure: AnyTRPCProcedure, call: ProcedureCall): Promise<unknown>;
export function runProcedure<T>(
  procedure: AnyTRPCProcedure,
  call: ProcedureCall,
  onData: (data: unknown) => T | PromiseLike<T>,
  onError: (cause: unknown) => T | PromiseLike<T>,
): Promise<T>;
export function runProcedure(
  procedure: AnyTRPCProcedure,
  call: ProcedureCall,
  onData: (data: unknown) => unknown = identity,
  onError: (cause: unknown) => unknown = rethrow,
): Promise<unknown> {
  try {
    const definition = procedure._def as unknown as RunnableDefinition;
    if (definition.experimental_caller) return Promise.resolve(procedure(call)).then(onData, onError);
    const { steps, meta } = planOf(definition);
    const chain = new Chain(steps, meta, call);
    let first: MiddlewareResult | Promise<MiddlewareResult>;
    try {
      first = chain.start(new Level(call.ctx, undefined, call.getRawInput, call.readRawInputNow));
    } catch (cause) {
      first = failed(cause);
    }
    // The first level's rejection handler and the chain's answer in one `then`: a rejection is
    // the failed result tRPC's runner would make of it.
    return Promise.resolve(first).then(
      (result: MiddlewareResult | undefined) => answerOf(result, onData, onError),
      (cause: unknown) => onError(getTRPCErrorFromUnknown(cause)),
    );
  } catch (cause) {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever was thrown, as an async function rejects with it
    return Promise.reject(cause);
  }
}

const identity = (value: unknown) => value;
const rethrow = (cause: unknown): never => {
  throw cause;
};

/** The chain's data, or its error, as tRPC's runner answers its result. */
function answerOf(result: MiddlewareResult | undefined, onData: (data: unknown) => unknown, onError: (cause: unknown) => unknown): unknown {
  // As tRPC's runner: a middleware that answers nothing is a bug in that middleware.
  if (!result)
    return onError(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' }),
    );
  return result.ok ? onData(result.data) : onError(result.error);
}

/** What the runner runs for a procedure: its middlewares, with tRPC's own input, output and resolver middlewares replaced. */
interface Plan {
  steps: Step[];
  meta: unknown;
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
  const asIs = (middleware: Middleware): Step => ({
    run: (chain, index, level) => middleware(chain.optionsAt(index, level)),
    settles: false,
  });
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
  const nextWith = (chain: Chain, index: number, level: Level, parsed: unknown) => {
    const input = isObject(level.input) && isObject(parsed) ? { ...level.input, ...parsed } : parsed;
    return chain.runFrom(index + 1, new Level(level.ctx, input, level.getRawInput, level.readNow));
  };
  const badInput = (cause: unknown) => failed(new TRPCError({ code: 'BAD_REQUEST', cause }));
  const fromRaw = (chain: Chain, index: number, level: Level, rawInput: unknown): Promise<MiddlewareResult> => {
    let parsed: unknown;
    try {
      parsed = parse(rawInput);
    } catch (cause) {
      return Promise.resolve(badInput(cause));
    }
    if (isThenable(parsed)) return Promise.resolve(parsed).then((value) => nextWith(chain, index, level, value), badInput);
    return nextWith(chain, index, level, parsed);
  };
  const run = (chain: Chain, index: number, level: Level): Promise<MiddlewareResult> => {
    const { readNow } = level;
    // As `await`: a middleware's own getRawInput may answer a plain value.
    if (readNow === undefined)
      return Promise.resolve(level.getRawInput()).then((rawInput) => fromRaw(chain, index, level, rawInput), failed);
    let rawInput: unknown;
    try {
      rawInput = readNow();
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
    return fromRaw(chain, index, level, rawInput);
  };
  return { run, settles: true };
}

/**
 * tRPC's output middleware (`createOutputMiddleware`) without its object-spread helper, and not
 * an async function (one promise less): the same parse function, the same error when parsing
 * fails, and a copy of the result with the parsed data.
 */
function outputStep(parse: (value: unknown) => unknown): Step {
  const failedOutput = (cause: unknown) =>
    failed(new TRPCError({ message: 'Output validation failed', code: 'INTERNAL_SERVER_ERROR', cause }));
  // Built once per procedure: it needs nothing of the call but the result.
  const parsedResult = (result: MiddlewareResult): MiddlewareResult | Promise<MiddlewareResult> => {
    if (!result.ok) return result;
    let data: unknown;
    try {
      data = parse(result.data);
    } catch (cause) {
      return failedOutput(cause);
    }
    if (isThenable(data)) return Promise.resolve(data).then((parsed): MiddlewareResult => ({ ...result, data: parsed }), failedOutput);
    return { ...result, data };
  };
  const run = (chain: Chain, index: number, level: Level): Promise<MiddlewareResult> => chain.runFrom(index + 1, level).then(parsedResult);
  return { run, settles: true };
}

/**
 * tRPC's `resolveMiddleware`, not an async function: the procedure's resolver called with the
 * options, its answer (awaited only when it is a promise) as the chain's successful result, a
 * throw or a rejection as a failed one.
 */
function resolverStep(resolver: (opts: MiddlewareOptions) => unknown): Step {
  const run = (chain: Chain, index: number, level: Level): Promise<MiddlewareResult> => {
    const succeeded = (data: unknown) => ({ marker: middlewareMarker, ok: true, data, ctx: level.ctx }) as MiddlewareResult;
    let data: unknown;
    try {
      data = resolver(chain.optionsAt(index, level));
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
    return isThenable(data) ? Promise.resolve(data).then(succeeded, failed) : Promise.resolve(succeeded(data));
  };
  return { run, settles: true };
}

/** What `await` would wait for, as tRPC awaits every parse. */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** tRPC's test for a plain object (not null, not an array). */
export const isObject = (value: unknown): value is object => !!value && !Array.isArray(value) && typeof value === 'object';

/** The router's procedures by path, for runners that look them up per request. */
export function proceduresOf(router: AnyTRPCRouter): Map<string, AnyTRPCProcedure> {
  return new Map(Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>));
}

/**
 * `router.createCaller(ctx)` as trpc-to-openapi uses it (`caller[a][b](input)`, called unbound),
 * with the runner above in place of tRPC's: a procedure path gives a function of the input
 * (its output passed through `mapOutput`); anything else, the next level of a nested router.
 */
export function createRunnerCaller(
  procedures: ReadonlyMap<string, AnyTRPCProcedure>,
  mapOutput: (output: unknown) => unknown = (output) => output,
) {
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
