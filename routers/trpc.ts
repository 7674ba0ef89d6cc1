import { initTRPC, TRPCError } from '@trpc/server';
import { z } from 'zod';
import { int64Json } from '../schemas/int64-json.js';
import { refusalOf, type AuthResult } from './auth.js';
import type { Context } from './context.js';
import { fromDomainError } from './domain-errors.js';
import { publicMessage } from './error-messages.js';
import type { ProcedureMeta } from './procedure-meta.js';

const trpc = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces stay in the logs, in every mode.
    isDev: false,
    // int64 beyond 2^53 crosses /trpc exactly; JSON clients are unaffected.
    transformer: int64Json.transformer,
    errorFormatter: ({ shape, error, ctx, type }) => ({ ...shape, message: publicMessage(error, ctx?.requestId, type) }),
  });

export const router = trpc.router;
export const createCallerFactory = trpc.createCallerFactory;

/**
 * A plain function the protected procedure's one middleware calls, not a middleware of its own (see below). An input
 * its schema refuses is worded as over HTTP for in-process callers too, the zod issues kept as the cause.
 */
function withDomainErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R, call: SignalOf): R {
  if (!result.ok) {
    const { error } = result;
    // Stopped because its caller went away: nothing is wrong with the service. Any other failure stays one, and is logged.
    const { signal } = call;
    if (signal?.aborted && causedBy(error, signal.reason)) {
      throw new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: CLIENT_GONE, cause: error });
    }
    const mapped = fromDomainError(error.cause);
    if (mapped) throw mapped;
    if (error.code === 'BAD_REQUEST' && error.cause instanceof z.ZodError) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: publicMessage(error), cause: error.cause });
    }
  }
  return result;
}

/**
 * One middleware, not a second one for auth: each middleware level makes tRPC copy the call's options, and
 * `next({ ctx })` would copy the context too. Only a verdict still pending is waited for.
 */
export const protectedProcedure = trpc.procedure.use((opts) => {
  const { auth } = opts.ctx;
  if (auth instanceof Promise) return auth.then((result) => admitted(opts, result));
  return admitted(opts, auth);
});

/** The call's signal, read only once the call fails: a serving path may make it on demand. */
interface SignalOf {
  readonly signal: AbortSignal | undefined;
}

interface CallOptions<R> extends SignalOf {
  ctx: Context;
  meta: ProcedureMeta | undefined;
  next: () => Promise<R>;
}

function admitted<R extends { ok: true } | { ok: false; error: TRPCError }>(opts: CallOptions<R>, auth: AuthResult): Promise<R> {
  const { ctx, next } = opts;
  const scope = opts.meta?.scope;
  // Named before the scope is checked: a caller refused for want of a scope is still known (its log line says who).
  if (auth.status === 'valid') ctx.principal = auth.principal;
  const refused = refusalOf(auth, scope);
  if (refused) throw fromDomainError(refused) ?? refused;
  return next().then((result) => withDomainErrors(result, opts));
}

const CLIENT_GONE = 'the client closed the connection before the answer';

/** Whether `reason` is the error or one of its causes: the store and the driver throw the abort's reason as it is. */
function causedBy(error: unknown, reason: unknown): boolean {
  let link = error;
  for (let depth = 0; depth < 8 && typeof link === 'object' && link !== null; depth++) {
    if (link === reason) return true;
    link = (link as { cause?: unknown }).cause;
  }
  return false;
}
