import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { NoRouteError } from '../errors/rest-error.js';

/**
 * Preflights answer before any hook (a browser sends no token). An OPTIONS that is no preflight is a method no route
 * serves: 405 with the path's `Allow` (404 where nothing is served), as without CORS, not the plugin's plain-text 400.
 */
export async function registerCors(
  app: FastifyInstance,
  origins: readonly string[],
  methods: readonly string[],
  headers: { allowed: readonly string[]; exposed: readonly string[] } = { allowed: [], exposed: [] },
): Promise<void> {
  if (origins.length === 0) return;
  app.addHook('onRequest', (request, _reply, done) => {
    if (
      request.method === 'OPTIONS' &&
      (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined)
    ) {
      done(new NoRouteError());
    } else done();
  });
  await app.register(cors, {
    origin: [...origins],
    methods: [...methods],
    // `trpc-accept`: tRPC's streaming batch link asks for JSON lines with it.
    allowedHeaders: ['authorization', 'content-type', 'trpc-accept', ...headers.allowed],
    exposedHeaders: ['x-request-id', 'www-authenticate', 'retry-after', 'link', 'allow', ...headers.exposed],
    maxAge: 600,
  });
}
