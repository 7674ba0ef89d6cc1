import type { AuthResult } from '../../routers/auth.js';

type Valid = AuthResult & { status: 'valid' };

/**
 * JWTs already verified, by their exact text, each until it expires or the keys it was checked
 * against may have changed (`until`), whichever is first: a client sends the same token for its
 * whole life, and this makes every use after the first a map lookup, with no promise, instead of
 * a signature check. Forgotten all at once whenever a fetch brings a key set that differs from
 * the last, so a key the provider withdraws stops counting with it. Bounded: past `max` entries, the oldest goes.
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
