import { getTRPCErrorFromUnknown, TRPCError, type AnyTRPCProcedure, type AnyTRPCRouter, type ProcedureType } from '@trpc/server';
import { getParseFn, middlewareMarker, type Parser } from '@trpc/server/unstable-core-do-not-import';

// Runs a procedure's middleware chain as tRPC's `procedure(opts)` does, without its per-level object-spread helper
// (`Object.defineProperty` per key, most of a call's time). tRPC's own input, output and resolver middlewares run as
// steps that read the level directly and wait a turn only where something is pending: fewer promises per call.

export interface ProcedureCall {
  ctx: unknown;
  getRawInput: () => Promise<unknown>;
  /** The raw input without waiting a turn, when the caller holds it: returns or throws as `getRawInput` settles. */
  readRawInputNow?: () => unknown;
  path: string;
  type: ProcedureType;
  signal: AbortSignal | undefined;
  batchIndex: number;
}

/** Where a call's `signal` comes from, read only when a procedure asks for it. */
export interface SignalSource {
  readonly signal: AbortSignal | undefined;
}

const NO_SIGNAL: SignalSource = { signal: undefined };

/** A call whose raw input the caller already holds. */
export function heldInputCall(ctx: unknown, input: unknown, path: string, type: ProcedureType, signals = NO_SIGNAL): ProcedureCall {
  return new HeldInputCall(ctx, input, path, type, signals);
}

class HeldInputCall implements ProcedureCall {
  readonly batchIndex = 0;

  constructor(
    readonly ctx: unknown,
    private readonly input: unknown,
    readonly path: string,
    readonly type: ProcedureType,
    private readonly signals: SignalSource,
  ) {}

  getRawInput = async () => this.input;
  readRawInputNow = () => this.input;

  get signal(): AbortSignal | undefined {
    return this.signals.signal;
  }
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

interface Step {
  // A middleware of the procedure's may still answer a plain value or throw, whatever its type says.
  run: (chain: Chain, index: number, level: Level) => Promise<MiddlewareResult>;
  /** Never rejects, answering every failure as a failed result: the level needs no rejection handler. */
  settles: boolean;
}

class Level {
  constructor(
    readonly ctx: unknown,
    readonly input: unknown,
    readonly getRawInput: () => Promise<unknown>,
    /** Undefined once a middleware passes its own `getRawInput`. */
    readonly readNow: (() => unknown) | undefined,
  ) {}
}

// A class, so every level shares one object shape (fast to build and read).
class MiddlewareOptions {
  constructor(
    readonly ctx: unknown,
    readonly getRawInput: () => Promise<unknown>,
    readonly path: string,
    readonly type: ProcedureType,
    private readonly call: ProcedureCall,
    readonly batchIndex: number,
    readonly meta: unknown,
    readonly input: unknown,
    readonly next: (options?: NextOptions) => Promise<MiddlewareResult>,
  ) {}

  /** The call's, read only when a middleware or resolver asks: a caller may make it on demand. */
  get signal(): AbortSignal | undefined {
    return this.call.signal;
  }
}

const failed = (cause: unknown) => ({ ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker }) as MiddlewareResult;

// Only the procedure's own middlewares and resolver are given options and a `next`, built as tRPC's runner builds them.
class Chain {
  constructor(
    readonly steps: readonly Step[],
    readonly meta: unknown,
    readonly call: ProcedureCall,
  ) {}

  // Not async: a level is the step's own promise, with a rejection handler only where the step may reject.
  runFrom(index: number, level: Level): Promise<MiddlewareResult> {
    try {
      const step = this.stepAt(index);
      const result = step.run(this, index, level);
      return step.settles ? result : Promise.resolve(result).catch(failed);
    } catch (cause) {
      return Promise.resolve(failed(cause));
    }
  }

  // Unlike `runFrom`, passes a rejection on: whoever waits for it handles that.
  start(level: Level): Promise<MiddlewareResult> {
    return this.stepAt(0).run(this, 0, level);
  }

  stepAt(index: number): Step {
    const step = this.steps[index];
    if (step === undefined) throw new TypeError('middleware is not a function');
    return step;
  }

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
    const { call } = this;
    return new MiddlewareOptions(level.ctx, level.getRawInput, call.path, call.type, call, call.batchIndex, this.meta, level.input, next);
  }
}

/** Runs a call as tRPC's `procedure(call)` does; `onData` and `onError` spare a caller that goes on with the answer one promise. */
export interface ProcedureRunner {
  (call: ProcedureCall): Promise<unknown>;
  <T>(call: ProcedureCall, onData: (data: unknown) => T | PromiseLike<T>, onError: (cause: unknown) => T | PromiseLike<T>): Promise<T>;
}

/** The procedure's chain read once, for every call the runner makes. */
export function procedureRunner(procedure: AnyTRPCProcedure): ProcedureRunner {
  const definition = procedure._def as unknown as RunnableDefinition;
  if (definition.experimental_caller) {
    return ((call: ProcedureCall, onData = identity, onError = rethrow) =>
      Promise.resolve(procedure(call)).then(onData, onError)) as ProcedureRunner;
  }
  const steps = stepsOf(definition);
  const { meta } = definition;
  return (call: ProcedureCall, onData: (data: unknown) => unknown = identity, onError: (cause: unknown) => unknown = rethrow) => {
    try {
      const chain = new Chain(steps, meta, call);
      let first: MiddlewareResult | Promise<MiddlewareResult>;
      try {
        first = chain.start(new Level(call.ctx, undefined, call.getRawInput, call.readRawInputNow));
      } catch (cause) {
        first = failed(cause);
      }
      // The first level's rejection handler and the chain's answer in one `then`.
      return Promise.resolve(first).then(
        (result: MiddlewareResult | undefined) => answerOf(result, onData, onError),
        (cause: unknown) => onError(getTRPCErrorFromUnknown(cause)),
      );
    } catch (cause) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as an async function rejects
      return Promise.reject(cause);
    }
  };
}

/** One call, its procedure's chain read for it alone: for tests. */
export function runProcedure(procedure: AnyTRPCProcedure, call: ProcedureCall): Promise<unknown> {
  return procedureRunner(procedure)(call);
}

const identity = (value: unknown) => value;
const rethrow = (cause: unknown): never => {
  throw cause;
};

function answerOf(result: MiddlewareResult | undefined, onData: (data: unknown) => unknown, onError: (cause: unknown) => unknown): unknown {
  // As tRPC's runner: a middleware that answers nothing is a bug in that middleware.
  if (!result)
    return onError(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'No result from middlewares - did you forget to `return next()`?' }),
    );
  return result.ok ? onData(result.data) : onError(result.error);
}

// tRPC adds one input middleware per `.input()`, in the order of `inputs`, keeps the one `.output()`'s parser in the
// definition, and ends the chain with `resolveMiddleware` around `resolver`; a chain that differs runs as it is.
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

/** tRPC's `createInputMiddleware`, without waiting a turn for input already held or a parse already done. */
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

/** tRPC's `createOutputMiddleware`, not async (one promise less). */
function outputStep(parse: (value: unknown) => unknown): Step {
  const failedOutput = (cause: unknown) =>
    failed(new TRPCError({ message: 'Output validation failed', code: 'INTERNAL_SERVER_ERROR', cause }));
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

/** tRPC's `resolveMiddleware`, not async: a resolver's answer is awaited only when it is a promise. */
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

export function proceduresOf(router: AnyTRPCRouter): Map<string, AnyTRPCProcedure> {
  return new Map(Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>));
}

/** `router.createCaller(ctx)` as trpc-to-openapi uses it (`caller[a][b](input)`, unbound), running procedures as above. */
export function createRunnerCaller(
  procedures: ReadonlyMap<string, AnyTRPCProcedure>,
  mapOutput: (output: unknown) => unknown = (output) => output,
) {
  const runners = new Map(
    [...procedures].map(([path, procedure]) => [path, { run: procedureRunner(procedure), type: procedure._def.type }]),
  );
  const level = (ctx: unknown, prefix: string): object =>
    new Proxy(
      {},
      {
        get: (_target, key) => {
          if (typeof key !== 'string') return undefined;
          const path = prefix === '' ? key : `${prefix}.${key}`;
          const runner = runners.get(path);
          if (runner === undefined) return level(ctx, path);
          return async (input: unknown) => mapOutput(await runner.run(heldInputCall(ctx, input, path, runner.type)));
        },
      },
    );
  return (ctx: unknown) => level(ctx, '');
}
