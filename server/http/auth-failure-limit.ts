import rateLimit from '@fastify/rate-limit';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';

export interface AuthFailureLimit {
  /** Failed authentications (401 answers) allowed per client address per window. */
  max: number;
  windowMs: number;
}

/** Addresses tracked at most; past this, the least recently seen are forgotten first. */
const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * Limits failed authentications per client address with @fastify/rate-limit, counting only
 * failures: every request of the routes of `api` (the ones that need a token) reads its
 * address's count without adding to it, and a 401 answer adds one. An address with `max`
 * failures in its window (which starts at its first failure) is answered 429 with `Retry-After`
 * until the window ends, whatever token it sends, so a token cannot be guessed at full speed.
 * Addresses are counted as @fastify/rate-limit counts them: an IPv6 address by its /64, which
 * one client usually holds whole, an IPv4-mapped one as IPv4.
 *
 * Only `api`'s routes are limited: the probes and the docs need no token and stay open to an
 * address that is locked out, such as a load balancer's or a NAT's shared by a probe.
 * The refusal is a TRPCError so both error handlers shape it: the `Error` body on REST, the
 * tRPC envelope on /trpc.
 */
export async function limitAuthFailures(api: FastifyInstance, limit: AuthFailureLimit): Promise<void> {
  // No route of its own (global: false): the hooks below ask it.
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
