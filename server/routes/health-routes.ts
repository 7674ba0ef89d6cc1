import type { FastifyInstance } from 'fastify';
import type { PlantStore } from '../plants/plant-store.js';
import { sendError } from './error-handling.js';

/** Probes for orchestrators; they need no token. */
export function registerHealthRoutes(app: FastifyInstance, { store }: { store: PlantStore }) {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await store.ping();
      return { status: 'ready' };
    } catch {
      return sendError(reply, { statusCode: 503, message: 'not ready: the plant database does not answer', headers: {} });
    }
  });
}
