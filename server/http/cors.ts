import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { httpError } from '../errors/http-error.js';

/**
 * CORS for the listed origins and the methods and headers the API's operations declare, with @fastify/cors: preflights answered 204 before any other
 * hook (a browser sends no token with them), the answers of real requests readable by those
 * origins. A preflight from another origin gets its 204 without `Access-Control-Allow-Origin`,
 * so the browser refuses the real request.
 *
 * An `OPTIONS` without `Origin` and `Access-Control-Request-Method` is no preflight: it is
 * refused here with the `Error` body, before @fastify/cors would answer it in plain text.
 * With no allowed origins, nothing is registered: no hook runs per request.
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
      done(httpError(400, 'not a CORS preflight: an OPTIONS request needs the headers Origin and Access-Control-Request-Method'));
    } else done();
  });
  await app.register(cors, {
    origin: [...origins],
    methods: [...methods],
    allowedHeaders: ['authorization', 'content-type', ...headers.allowed],
    exposedHeaders: ['x-request-id', 'www-authenticate', 'retry-after', 'link', 'allow', ...headers.exposed],
    maxAge: 600,
  });
}
