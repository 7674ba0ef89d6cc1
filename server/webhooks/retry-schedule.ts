import { MAX_RETRY_DELAY_MS } from './webhook-config.js';

/**
 * Exponential backoff capped at one hour, with "equal jitter" so that events that failed together do not all come back
 * at once. A longer `Retry-After` from the receiver is honoured, still within the hour.
 */
export function retryDelayMs(failedAttempts: number, baseMs: number, retryAfterMs = 0, random: () => number = Math.random): number {
  const full = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, failedAttempts - 1));
  const jittered = Math.round(full / 2 + (random() * full) / 2);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, retryAfterMs));
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from `nowMs`; 0 when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs: number): number {
  if (header === null) return 0;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? 0 : Math.max(0, at - nowMs);
}
