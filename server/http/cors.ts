import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../errors/http-error.js';

/** Preflights answer before any hook (a browser sends no token); a non-preflight OPTIONS gets the `Error` body, not plain text. */
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
      done(httpError(400, 'not a CORS preflight: an OPTIONS request needs the headers Origin and Access-Control-Request-Method'));
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
