import rateLimit from '@fastify/rate-limit';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';

export interface AuthFailureLimit {
  /** Failed authentications (401 answers) allowed per client address per window. */
  max: number;
  windowMs: number;
}

const MAX_TRACKED_ADDRESSES = 100_000;

/** Counts only 401s, so a token cannot be guessed at full speed; only `api`'s routes, so probes stay open to a shared address. */
export async function limitAuthFailures(api: FastifyInstance, limit: AuthFailureLimit): Promise<void> {
  await api.register(rateLimit, { global: false, max: limit.max, timeWindow: limit.windowMs, cache: MAX_TRACKED_ADDRESSES });
  const failures = api.createRateLimit();
  api.addHook('onRequest', async (request, reply) => {
    const count = await failures(request, { increment: false });
    if (count.isAllowed || count.remaining > 0) return;
    reply.header('retry-after', String(count.ttlInSeconds));
    throw new TRPCError({
      code: 'TOO_MANY_REQUESTS',
      message: `too many failed authentications from this address: try again in ${count.ttlInSeconds} s`,
    });
  });
  api.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 401) await failures(request);
  });
}
