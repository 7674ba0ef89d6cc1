import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import type { PlantStore } from '../../routers/plant-store.js';

/** Probes for orchestrators; they need no token. */
export function registerHealthRoutes(app: FastifyInstance, { store }: { store: PlantStore }) {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    try {
      await store.ping();
    } catch (cause) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'not ready: the plant database does not answer', cause });
    }
    return { status: 'ready' };
  });
}
