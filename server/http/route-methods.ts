import type { FastifyInstance } from 'fastify';
import { inMethodOrder } from './method-order.js';

interface ServedPath {
  matches(path: string): boolean;
  methods: readonly string[];
}

/** Methods per path for a 405's `Allow` (RFC 9110 section 15.5.6); catch-alls are added by whoever mounts them. */
export class RouteMethods {
  private readonly served: ServedPath[] = [];

  record(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const matches = pathMatcher(route.url);
      if (matches) this.add([route.method].flat(), matches);
    });
  }

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

/** Undefined for a catch-all, or parameter patterns this does not read. */
function pathMatcher(routePath: string): ((path: string) => boolean) | undefined {
  if (routePath === '*' || routePath === '/*' || routePath.includes('(')) return undefined;
  const source = routePath
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.test(path);
}
