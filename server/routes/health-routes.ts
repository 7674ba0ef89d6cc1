import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { StoreMisconfiguredError, type PlantStore } from '../../routers/plant-store.js';
import { ShuttingDownError } from '../http/graceful-close.js';

/** A longer stall of the event loop since the previous `/healthz` makes it answer 503. */
const MAX_EVENT_LOOP_STALL_MS = 1_000;
const SAMPLE_MS = 50;
/** How long a stall keeps `/healthz` at 503: every probe within it sees it, whoever asked first. */
const STALL_SIGNAL_MS = 15_000;
const READY_CHECK_FRESH_MS = 100;

/** Probes need no token. A MongoDB that is away never fails `/healthz`: restarting would not bring it back. */
export function registerHealthRoutes(app: FastifyInstance, { store }: { store: PlantStore }) {
  const delay = monitorEventLoopDelay({ resolution: SAMPLE_MS });
  // Our own tick besides the histogram, which can miss a pause of the whole process (stopped, or its VM frozen).
  let lastTick = performance.now();
  let longestGap = 0;
  let ticking: NodeJS.Timeout | undefined;
  // From the first request on: start-up's own work is no stall.
  app.addHook('onReady', async () => {
    delay.enable();
    lastTick = performance.now();
    ticking = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - lastTick);
      lastTick = now;
    }, SAMPLE_MS).unref();
  });
  app.addHook('onClose', async () => {
    delay.disable();
    clearInterval(ticking);
  });

  let stall: { ms: number; until: number } | undefined;
  app.get('/healthz', async () => {
    // The histogram holds how late each sample ran, in ns, since the previous probe.
    const stalledMs = Math.round(Math.max(delay.max / 1e6, longestGap, performance.now() - lastTick)) - SAMPLE_MS;
    delay.reset();
    longestGap = 0;
    const now = Date.now();
    if (stalledMs > MAX_EVENT_LOOP_STALL_MS) stall = { ms: stalledMs, until: now + STALL_SIGNAL_MS };
    if (stall && now < stall.until) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `not healthy: the event loop stalled for ${stall.ms} ms` });
    }
    return { status: 'ok' };
  });

  // However many callers (it needs no token), MongoDB gets at most one ping per READY_CHECK_FRESH_MS.
  const readiness = sharedCheck(() => store.ping(), READY_CHECK_FRESH_MS);
  app.get('/readyz', async () => {
    if (app.shutdown.announced) {
      throw new TRPCError({
        code: 'SERVICE_UNAVAILABLE',
        message: 'not ready: the service is shutting down',
        cause: new ShuttingDownError(),
      });
    }
    try {
      await readiness();
    } catch (cause) {
      const why = cause instanceof StoreMisconfiguredError ? cause.message : 'the plant database does not answer';
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `not ready: ${why}`, cause });
    }
    return { status: 'ready' };
  });
}

/** One run of `check` shared by every caller until `freshMs` after it started. */
function sharedCheck(check: () => Promise<unknown>, freshMs: number): () => Promise<unknown> {
  let current: Promise<unknown> | undefined;
  let startedAt = 0;
  let running = false;
  return () => {
    if (current && (running || Date.now() - startedAt < freshMs)) return current;
    startedAt = Date.now();
    running = true;
    current = check().finally(() => {
      running = false;
    });
    return current;
  };
}
