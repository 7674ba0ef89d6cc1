import type { TRPCError } from '@trpc/server';
import type { RestAnswer, RestMeta } from '@plant-store/fast-path';
import type { Context } from '../../routers/context.js';

/**
 * What the REST routes give trpc-to-openapi, in either mode (the fast path's handlers or its
 * Fastify plugin): how an answer's status and headers are set, and what becomes of a failure.
 */

const NO_HEADERS = {};

/**
 * The status and headers of a successful answer, the same for every operation: 204 No Content
 * when the procedure answers nothing, and a `Link` to the next page when it says one follows
 * (`ctx.nextPage`): this request's path and query with those query parameters set.
 */
export function responseMeta({ ctx, data, errors, info }: RestAnswer<Context>): RestMeta {
  if (errors.length > 0) return {};
  let headers: Record<string, string> = NO_HEADERS;
  if (ctx?.nextPage && info?.url) {
    const query = new URLSearchParams(info.url.search);
    for (const [name, value] of Object.entries(ctx.nextPage)) query.set(name, value);
    headers = { link: `<${info.url.pathname}?${query.toString()}>; rel="next"` };
  }
  return data[0] === undefined ? { status: 204, headers } : { headers };
}

/** trpc-to-openapi's `onError`: the error is rethrown, so the app's error handler, which shapes every failure, answers it with the interface's `Error` body. */
export function rethrowRestError({ error }: { error: TRPCError }): never {
  throw error;
}
