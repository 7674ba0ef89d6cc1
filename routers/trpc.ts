/**
 * tRPC set-up, in the order it is used:
 * 1. initialisation: one `initTRPC` over the context (context.ts), with an error formatter
 *    that never leaks internals;
 * 2. procedures: `publicProcedure` and `protectedProcedure` (bearer token required).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { int64Json } from '../schemas/int64-json.js';
import { AuthError, type Context } from './context.js';
import { publicMessage } from './error-messages.js';
import { PlantConflictError, PlantNotFoundError, StoreUnavailableError } from './plant-store.js';

// 1. Initialisation ----------------------------------------------------------------------

const trpc = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
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
 * Turns the store's domain errors into tRPC codes, so each procedure need not. A function both
 * procedure kinds call inside their one middleware, rather than a middleware of its own: see
 * `protectedProcedure`.
 */
function withStoreErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (!result.ok) {
    const { cause } = result.error;
    if (cause instanceof PlantConflictError) throw new TRPCError({ code: 'CONFLICT', message: cause.message, cause });
    if (cause instanceof PlantNotFoundError) throw new TRPCError({ code: 'NOT_FOUND', message: cause.message, cause });
    if (cause instanceof StoreUnavailableError) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: cause.message, cause });
    }
  }
  return result;
}

// The middlewares below are not async functions: a promise less per call; a throw is an error
// result all the same.
export const publicProcedure = trpc.procedure.use(({ next }) => next().then(withStoreErrors));

/**
 * The token check and the store-error mapping in one middleware, not `publicProcedure.use(auth)`:
 * every middleware level makes tRPC copy the call's options, a cost seen in profiles. A refused token is UNAUTHORIZED; store errors map as above.
 */
export const protectedProcedure = trpc.procedure.use(({ ctx, next }) => {
  if (ctx.auth.status !== 'valid') {
    const cause = new AuthError(ctx.auth);
    throw new TRPCError({ code: 'UNAUTHORIZED', message: cause.message, cause });
  }
  return next().then(withStoreErrors);
});
