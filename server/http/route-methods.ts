import type { FastifyInstance } from 'fastify';
import type { ServedMethods } from '../errors/rest-error.js';
import { inMethodOrder } from '../methods/method-order.js';

interface ServedPath {
  matches(path: string): boolean;
  methods: readonly string[];
  /** A PATCH's request media types. */
  patchMediaTypes?: readonly string[];
}

/** A REST operation as its catch-all serves it: one method, at the paths it matches, its body in these media types. */
interface ServedOperation {
  operation: { method: string; matchesUrl(path: string): boolean };
  mediaTypes: readonly string[];
}

/** Set on a context whose routes do not count: see `fromOperations`. */
const ALLOW_FROM_OPERATIONS = Symbol('allowFromOperations');

/** Methods per path for a 405's `Allow` (RFC 9110 section 15.5.6), from the routes as Fastify adds them. */
export class RouteMethods {
  private readonly served: ServedPath[] = [];

  /** Every route added from now on counts, in every context (its URL carries the prefix), but those `fromOperations` leaves out. */
  recordRoutes(app: FastifyInstance): void {
    const served = this.served;
    app.addHook('onRoute', function (route) {
      if (this.hasDecorator(ALLOW_FROM_OPERATIONS)) return;
      const methods = [route.method].flat();
      served.push({ methods, matches: pathMatcher(route.url) });
      // Fastify also serves a prefix's root route with a trailing slash (`prefixTrailingSlash: 'both'`), without a hook call.
      if (route.routePath === '' && (route.prefixTrailingSlash ?? 'both') === 'both')
        served.push({ methods, matches: pathMatcher(`${route.url}/`) });
    });
  }

  /**
   * A context whose catch-all takes every method on every path (trpc-to-openapi's, or the fast path's): its routes do not
   * count. Its operations do, matched as trpc-to-openapi matches paths (in any case, with a trailing slash), which no route's
   * pattern says.
   */
  fromOperations(context: FastifyInstance, operations: readonly ServedOperation[]): void {
    context.decorate(ALLOW_FROM_OPERATIONS, true);
    for (const { operation, mediaTypes } of operations) {
      this.served.push({
        methods: [operation.method],
        matches: (path) => operation.matchesUrl(path),
        ...(operation.method === 'PATCH' && { patchMediaTypes: mediaTypes }),
      });
    }
  }

  at(url: string): ServedMethods {
    const path = url.split('?', 1)[0] ?? '';
    const methods = new Set<string>();
    const patchMediaTypes = new Set<string>();
    for (const served of this.served) {
      if (!served.matches(path)) continue;
      for (const method of served.methods) methods.add(method);
      for (const mediaType of served.patchMediaTypes ?? []) patchMediaTypes.add(mediaType);
    }
    // Fastify answers HEAD wherever it answers GET.
    if (methods.has('GET')) methods.add('HEAD');
    return { methods: inMethodOrder(methods), patchMediaTypes: [...patchMediaTypes] };
  }
}

/** As Fastify's router matches: a parameter takes any segment, an empty one too (`/trpc/` is `/trpc/:path`'s). */
function pathMatcher(routePath: string): (path: string) => boolean {
  const source = routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]*' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.test(path);
}
