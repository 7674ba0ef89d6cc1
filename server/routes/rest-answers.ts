import type { TRPCError } from '@trpc/server';
import type { RestAnswer, RestMeta } from '@plant-store/fast-path';
import type { Context } from '../../routers/context.js';
import { matchesWeakly, parseEntityTagCondition } from '../../routers/entity-tags.js';

const NO_HEADERS = {};

/** The same for every operation: 204 for no output, a `Link` to the next page, the `ETag`, or 304 when If-None-Match names it. */
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
    if (ctx?.conditions?.read && isNotModified(ctx.conditions.ifNoneMatch, entityTag)) return { status: 304, headers };
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

/** Rethrown, so the app's one error handler answers it with the `Error` body. */
export function rethrowRestError({ error }: { error: TRPCError }): never {
  throw error;
}
