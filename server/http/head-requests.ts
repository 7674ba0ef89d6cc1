import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { IncomingMessage } from 'node:http';

/** HEAD as GET (RFC 9110 section 9.3.2): tRPC and trpc-to-openapi answer any HEAD 204 without a token, so handlers see a GET. */
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

/** Both the request and its raw IncomingMessage, as the adapters read either. */
function seenAsGet(request: FastifyRequest): FastifyRequest {
  const raw = asGet(request.raw);
  return new Proxy(request, {
    get: (target, key) => (key === 'method' ? 'GET' : key === 'raw' ? raw : (Reflect.get(target, key) as unknown)),
  });
}

function asGet(raw: IncomingMessage): IncomingMessage {
  return new Proxy(raw, { get: (target, key) => (key === 'method' ? 'GET' : (Reflect.get(target, key) as unknown)) });
}
