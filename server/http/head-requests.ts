import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { IncomingMessage } from 'node:http';

/**
 * `HEAD` answers exactly as `GET` would (RFC 9110 section 9.3.2): same status and headers, the
 * token checked, 404 where GET has no route, and no body.
 *
 * Fastify serves HEAD on every GET route with the GET handler and drops the body, but the
 * handlers behind the API read the method themselves and have answers of their own for HEAD:
 * trpc-to-openapi and tRPC both answer 204 to any HEAD ("for warm-up"), with no token and on
 * any path. So the handler of a HEAD request is shown the request as a GET (its `method`, and
 * its raw request's); Fastify and Node still see the HEAD and send no body.
 *
 * An onRoute hook, so a route served only for GET pays nothing, and a route served for every
 * method (/trpc) pays one comparison. This assumes what holds in this app: a route that
 * serves HEAD serves GET the same way (Fastify's own HEAD routes, and routes for all methods).
 */
export function answerHeadAsGet(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.includes('HEAD')) return;
    const handler: RouteHandlerMethod = route.handler;
    route.handler =
      methods.length === 1
        ? function (request, reply) {
            return handler.call(this, seenAsGet(request), reply);
          }
        : function (request, reply) {
            return handler.call(this, request.method === 'HEAD' ? seenAsGet(request) : request, reply);
          };
  });
}

/** The request as its handler sees it: a GET, down to its raw IncomingMessage; everything else is the request's own. */
function seenAsGet(request: FastifyRequest): FastifyRequest {
  const raw = asGet(request.raw);
  return new Proxy(request, {
    get: (target, key) => (key === 'method' ? 'GET' : key === 'raw' ? raw : (Reflect.get(target, key) as unknown)),
  });
}

function asGet(raw: IncomingMessage): IncomingMessage {
  return new Proxy(raw, { get: (target, key) => (key === 'method' ? 'GET' : (Reflect.get(target, key) as unknown)) });
}
