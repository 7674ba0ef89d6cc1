/**
 * tRPC set-up, in the order it is used:
 * 1. context: what every procedure is given;
 * 2. initialisation: one `initTRPC`, with an error formatter that never leaks internals;
 * 3. procedures: `publicProcedure` and `protectedProcedure` (bearer token required).
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AuthResult, TokenVerifier } from '../server/auth/bearer-tokens.js';
import { PlantConflictError, StoreUnavailableError, type PlantStore } from '../server/plants/plant-store.js';
import { publicMessage } from './error-messages.js';

// 1. Context -----------------------------------------------------------------------------

export interface Context {
  store: PlantStore;
  auth: AuthResult;
}

export interface ContextDeps {
  store: PlantStore;
  verifyToken: TokenVerifier;
}

/** One context factory for every way in: tRPC over HTTP, REST, and in-process callers. */
export function createContextFactory({ store, verifyToken }: ContextDeps) {
  return (authorization: string | undefined): Context => ({ store, auth: verifyToken(authorization) });
}

// 2. Initialisation ----------------------------------------------------------------------

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    // Stack traces stay in the logs, in every mode.
    isDev: false,
    errorFormatter: ({ shape, error }) => ({ ...shape, message: publicMessage(error) }),
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

// 3. Procedures --------------------------------------------------------------------------

/**
 * Turns the store's domain errors into tRPC codes, so each procedure need not. A function both
 * procedure kinds call inside their one middleware, rather than a middleware of its own: see
 * `protectedProcedure`.
 */
function withStoreErrors<R extends { ok: true } | { ok: false; error: TRPCError }>(result: R): R {
  if (!result.ok) {
    const { cause } = result.error;
    if (cause instanceof PlantConflictError) throw new TRPCError({ code: 'CONFLICT', message: cause.message, cause });
    if (cause instanceof StoreUnavailableError) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: cause.message, cause });
    }
  }
  return result;
}

export const publicProcedure = t.procedure.use(async ({ next }) => withStoreErrors(await next()));

export class AuthError extends Error {
  override name = 'AuthError';
  constructor(readonly auth: AuthResult) {
    super(
      auth.status === 'missing'
        ? 'missing bearer token: send the header Authorization: Bearer <token>'
        : 'invalid bearer token',
    );
  }
}

/**
 * The token check and the store-error mapping in one middleware, not `publicProcedure.use(auth)`:
 * tRPC copies the call's options twice per middleware level (object spreads through a slow
 * helper), which profiled at about a sixth of a request's CPU; one level fewer saves a fifth of
 * that. The outcome is the same: a refused token is UNAUTHORIZED, and store errors still map.
 */
export const protectedProcedure = t.procedure.use(async ({ ctx, next }) => {
  if (ctx.auth.status !== 'valid') {
    const cause = new AuthError(ctx.auth);
    throw new TRPCError({ code: 'UNAUTHORIZED', message: cause.message, cause });
  }
  return withStoreErrors(await next());
});
