import type { AuthResult } from '../../routers/auth.js';

type Valid = AuthResult & { status: 'valid' };

/**
 * Verified JWTs by exact text, until expiry or a key-set change: a client reuses its token, so later uses are a map lookup.
 * Cleared whenever the key set changes, so a withdrawn key stops counting. Bounded: past `max`, the oldest goes.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { verdict: Valid; until: number }>();

  constructor(private readonly max: number) {}

  get(token: string, now = Date.now()): Valid | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.verdict;
    this.entries.delete(token);
    return undefined;
  }

  add(token: string, verdict: Valid, until: number): void {
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { verdict, until });
  }

  clear(): void {
    this.entries.clear();
  }
}
