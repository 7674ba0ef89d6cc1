import { TRPCError } from '@trpc/server';
import type { FastifyInstance } from 'fastify';

export interface AuthFailureLimit {
  /** Failed authentications (401 answers) allowed per client address per window. */
  max: number;
  windowMs: number;
}

/** Addresses tracked at most; past this, the oldest windows are forgotten first. */
const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * Counts 401 answers per client address in fixed windows that start at the first failure. An
 * address over the limit is refused until its window ends, whatever token it sends next, so a
 * token cannot be guessed at full speed.
 */
export class AuthFailureCounter {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly limit: AuthFailureLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `address` may try again; 0 when it is not refused. */
  waitFor(address: string): number {
    const window = this.windows.get(address);
    if (window === undefined) return 0;
    const left = window.endsAt - this.now();
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return window.failures >= this.limit.max ? left : 0;
  }

  recordFailure(address: string): void {
    const now = this.now();
    const window = this.windows.get(address);
    if (window !== undefined && window.endsAt > now) {
      window.failures += 1;
      return;
    }
    this.windows.delete(address);
    if (this.windows.size >= MAX_TRACKED_ADDRESSES) this.forgetOldest(now);
    this.windows.set(address, { failures: 1, endsAt: now + this.limit.windowMs });
  }

  get trackedAddresses(): number {
    return this.windows.size;
  }

  private forgetOldest(now: number): void {
    // Insertion order is window start order, so expired windows come first.
    for (const [address, window] of this.windows) {
      if (window.endsAt > now && this.windows.size < MAX_TRACKED_ADDRESSES) return;
      this.windows.delete(address);
    }
  }
}

/**
 * Answers 429 with `Retry-After` to every request from an address that failed authentication
 * `max` times within `windowMs`. The refusal is a TRPCError so both error handlers shape it:
 * the `Error` body on REST, the tRPC envelope on /trpc.
 */
export function registerAuthFailureLimit(app: FastifyInstance, limit: AuthFailureLimit): AuthFailureCounter {
  const counter = new AuthFailureCounter(limit);
  app.addHook('onRequest', async (request, reply) => {
    const waitMs = counter.waitFor(request.ip);
    if (waitMs === 0) return;
    const seconds = Math.ceil(waitMs / 1000);
    reply.header('retry-after', String(seconds));
    throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `too many failed authentications from this address: try again in ${seconds} s` });
  });
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 401) counter.recordFailure(request.ip);
  });
  return counter;
}
