import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import type { PlantStore } from '../../routers/plant-store.js';

/** A longer stall of the event loop since the previous `/healthz` makes it answer 503. */
const MAX_EVENT_LOOP_STALL_MS = 1_000;
/** How finely the event loop's delay is sampled. */
const SAMPLE_MS = 50;

/**
 * Probes for orchestrators; they need no token. `/healthz` (liveness): whether the process can
 * serve: its event loop has not stalled since the previous probe. `/readyz` (readiness): whether
 * MongoDB answers now, within MONGODB_TIMEOUT_MS, and the service is not shutting down (from the
 * signal on, so that load balancers stop sending it work: server/http/graceful-close.ts). A MongoDB that is away never fails `/healthz`: restarting would not bring it
 * back, and server/db/mongo-database.ts reconnects by itself.
 */
export function registerHealthRoutes(app: FastifyInstance, { store }: { store: PlantStore }) {
  const delay = monitorEventLoopDelay({ resolution: SAMPLE_MS });
  // From the first request on: start-up's own work is no stall.
  app.addHook('onReady', async () => {
    delay.enable();
  });
  app.addHook('onClose', async () => {
    delay.disable();
  });

  app.get('/healthz', async () => {
    // The histogram holds how late each sample ran, in ns, since the previous probe.
    const stalledMs = Math.round(delay.max / 1e6) - SAMPLE_MS;
    delay.reset();
    if (stalledMs > MAX_EVENT_LOOP_STALL_MS) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `not healthy: the event loop stalled for ${stalledMs} ms` });
    }
    return { status: 'ok' };
  });

  app.get('/readyz', async () => {
    if (app.shutdown.announced) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'not ready: the service is shutting down' });
    try {
      await store.ping();
    } catch (cause) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'not ready: the plant database does not answer', cause });
    }
    return { status: 'ready' };
  });
}
