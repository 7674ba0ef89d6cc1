/**
 * tRPC set-up, in the order it is used:
 * 1. initialisation: one `initTRPC` over the context (context.ts), with an error formatter
 *    that never leaks internals;
 * 2. procedures: `publicProcedure` and `protectedProcedure` (a bearer token granting the
 *    procedure's scope, declared once in its meta).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { int64Json } from '../schemas/int64-json.js';
import { admit, type AuthResult, type Scope } from './auth.js';
import type { Context } from './context.js';
import { fromDomainError } from './domain-errors.js';
import { publicMessage } from './error-messages.js';
import type { ProcedureMeta } from './procedure-meta.js';

// 1. Initialisation ----------------------------------------------------------------------

const trpc = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces stay in the logs, in every mode.
    isDev: false,
    // int64 values beyond 2^53 cross /trpc exactly: see schemas/int64-json.ts. JSON clients are unaffected.
    transformer: int64Json.transformer,
    errorFormatter: ({ shape, error }) => ({ ...shape, message: publicMessage(error) }),
  });

export const router = trpc.router;
export const createCallerFactory = trpc.createCallerFactory;

// 2. Procedures --------------------------------------------------------------------------

/**
 * A failed call whose cause is a domain error fails with that error's code instead (the table of
 * domain-errors.ts). A function both procedure kinds call inside their one middleware, rather
 * than a middleware of its own: see `protectedProcedure`.
 */
function withDomainErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (!result.ok) {
    const mapped = fromDomainError(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
}

// The middlewares below are not async functions: a promise less per call; a throw is an error
// result all the same.
export const publicProcedure = trpc.procedure.use(({ next }) => next().then(withDomainErrors));

/**
 * The token check and the store-error mapping in one middleware, not `publicProcedure.use(auth)`:
 * every middleware level makes tRPC copy the call's options, a cost seen in profiles.
 * The principal goes on the call's own context object rather than through
 * `next({ ctx })`, which would copy the context too. A verdict that is already a value (a static
 * token, a JWT verified before) is checked at once; only a promise is waited for. No token or a
 * refused one is UNAUTHORIZED, a token without the procedure's scope FORBIDDEN, keys that cannot
 * be fetched SERVICE_UNAVAILABLE, through the same table as the store's errors.
 */
export const protectedProcedure = trpc.procedure.use(({ ctx, meta, next }) => {
  const { auth } = ctx;
  if (auth instanceof Promise) return auth.then((result) => admitted(ctx, result, meta?.scope, next));
  return admitted(ctx, auth, meta?.scope, next);
});

function admitted<R extends { ok: true } | { ok: false; error: TRPCError }>(
  ctx: Context,
  auth: AuthResult,
  scope: Scope | undefined,
  next: () => Promise<R>,
): Promise<R> {
  // Named before the scope is checked: a caller refused for want of a scope is still known (its log line says who).
  if (auth.status === 'valid') ctx.principal = auth.principal;
  try {
    admit(auth, scope);
  } catch (cause) {
    throw fromDomainError(cause) ?? cause;
  }
  return next().then(withDomainErrors);
}
