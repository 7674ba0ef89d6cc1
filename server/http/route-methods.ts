import { inMethodOrder } from '../methods/method-order.js';

interface ServedPath {
  matches(path: string): boolean;
  methods: readonly string[];
}

/** Methods per path for a 405's `Allow` (RFC 9110 section 15.5.6), as each plugin declares the routes it adds. */
export class RouteMethods {
  private readonly served: ServedPath[] = [];

  /** A route's path as Fastify reads it (`/plants/:id`, `/docs/*`). */
  declare(routePath: string, methods: readonly string[]): void {
    this.add(methods, pathMatcher(routePath));
  }

  /** Paths a catch-all serves, matched as its handler matches them. */
  add(methods: readonly string[], matches: (path: string) => boolean): void {
    this.served.push({ matches, methods });
  }

  at(url: string): string[] {
    const path = url.split('?', 1)[0] ?? '';
    const methods = new Set<string>();
    for (const served of this.served) if (served.matches(path)) for (const method of served.methods) methods.add(method);
    // Fastify answers HEAD wherever it answers GET.
    if (methods.has('GET')) methods.add('HEAD');
    return inMethodOrder(methods);
  }
}

function pathMatcher(routePath: string): (path: string) => boolean {
  const source = routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.test(path);
}
