import type { FastifyInstance } from 'fastify';
import { inMethodOrder } from './method-order.js';

interface ServedPath {
  matches(path: string): boolean;
  methods: readonly string[];
}

/**
 * Which methods each path of the app serves, for the 405 that answers a known path asked with
 * a method it does not serve (`PUT /plants`), with `Allow` (RFC 9110 section 15.5.6). Asked only
 * on the way to a 404, so no request that finds its route pays for it.
 *
 * Fastify's own routes are recorded as they are added (`record`, before any route). Catch-all
 * routes (`*`, `/*`) serve every path, not one, so they are left out; what they serve is added by
 * whoever mounts them (`add`): trpc-to-openapi's catch-all serves the REST operations.
 */
export class RouteMethods {
  private readonly served: ServedPath[] = [];

  /** Records every route added to `app` from now on. */
  record(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const matches = pathMatcher(route.url);
      if (matches) this.add([route.method].flat(), matches);
    });
  }

  add(methods: readonly string[], matches: (path: string) => boolean): void {
    this.served.push({ matches, methods });
  }

  /** The methods served at the path of `url` (its query ignored), in `Allow`'s order; none for an unknown path. */
  at(url: string): string[] {
    const path = url.split('?', 1)[0] ?? '';
    const methods = new Set<string>();
    for (const served of this.served) if (served.matches(path)) for (const method of served.methods) methods.add(method);
    // Fastify answers HEAD wherever it answers GET.
    if (methods.has('GET')) methods.add('HEAD');
    return inMethodOrder(methods);
  }
}

/**
 * A test of a concrete path against a Fastify route path (`/plants/:id`, `/docs/static/*`):
 * a parameter stands for one non-empty segment, a final `*` for the rest. Undefined for a
 * catch-all, or a path with parameter patterns this does not read.
 */
function pathMatcher(routePath: string): ((path: string) => boolean) | undefined {
  if (routePath === '*' || routePath === '/*' || routePath.includes('(')) return undefined;
  const source = routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.test(path);
}
