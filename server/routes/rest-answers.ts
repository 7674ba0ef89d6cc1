import type { TRPCError } from '@trpc/server';
import type { RestAnswer, RestMeta } from '@plant-store/fast-path';
import type { Context } from '../../routers/context.js';
import { matchesWeakly, parseEntityTagCondition } from '../../routers/entity-tags.js';

/**
 * What the REST routes give trpc-to-openapi, in either mode (the fast path's handlers or its
 * Fastify plugin): how an answer's status and headers are set, and what becomes of a failure.
 */

const NO_HEADERS = {};

/**
 * The status and headers of a successful answer, the same for every operation: 204 No Content
 * when the procedure answers nothing, a `Link` to the next page when it says one follows
 * (`ctx.nextPage`): this request's path and query with those query parameters set, and the
 * `ETag` of the plant it answers (`ctx.entityTag`), or 304 when a read's If-None-Match names it.
 */
export function responseMeta({ ctx, data, errors, info }: RestAnswer<Context>): RestMeta {
  if (errors.length > 0) return {};
  let headers: Record<string, string> = NO_HEADERS;
  if (ctx?.nextPage && info?.url) {
    const query = new URLSearchParams(info.url.search);
    for (const [name, value] of Object.entries(ctx.nextPage)) query.set(name, value);
    headers = { link: `<${info.url.pathname}?${query.toString()}>; rel="next"` };
  }
  const entityTag = ctx?.entityTag;
  if (entityTag !== undefined) {
    headers = { ...headers, etag: entityTag };
    if (isNotModified(ctx?.conditions?.ifNoneMatch, entityTag)) return { status: 304, headers };
  }
  return data[0] === undefined ? { status: 204, headers } : { headers };
}

/** The `ETag` of the plant a call answered, when it answered one: for /trpc answers, as REST's carry it. */
export function entityTagHeaders(ctx: Context): Record<string, string> | undefined {
  return ctx.entityTag === undefined ? undefined : { etag: ctx.entityTag };
}

/** Whether a read's If-None-Match names the entity tag (weakly: RFC 9110, section 13.1.2); an unreadable one is ignored. */
function isNotModified(ifNoneMatch: string | undefined, entityTag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const condition = parseEntityTagCondition(ifNoneMatch);
  return condition !== undefined && matchesWeakly(condition, entityTag);
}

/** trpc-to-openapi's `onError`: the error is rethrown, so the app's error handler, which shapes every failure, answers it with the interface's `Error` body. */
export function rethrowRestError({ error }: { error: TRPCError }): never {
  throw error;
}
