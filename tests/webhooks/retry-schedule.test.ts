import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelayMs } from '../../server/webhooks/retry-schedule.js';

const HOUR = 3_600_000;

describe('the retry delay', () => {
  it('doubles from the base with each failed attempt, jittered between half and all of it', () => {
    for (const [failed, full] of [
      [1, 5_000],
      [2, 10_000],
      [3, 20_000],
      [6, 160_000],
    ] as const) {
      expect(retryDelayMs(failed, 5_000, 0, () => 0)).toBe(full / 2);
      expect(retryDelayMs(failed, 5_000, 0, () => 1)).toBe(full);
    }
  });

  it('is capped at one hour, however many attempts failed', () => {
    expect(retryDelayMs(11, 5_000, 0, () => 1)).toBe(HOUR);
    expect(retryDelayMs(200, 5_000, 0, () => 1)).toBe(HOUR);
    expect(retryDelayMs(200, 5_000, 0, () => 0)).toBe(HOUR / 2);
  });

  it("honours a receiver's Retry-After when it asks for longer, within the hour", () => {
    expect(retryDelayMs(1, 50, 2_000, () => 0.5)).toBe(2_000);
    expect(retryDelayMs(1, 5_000, 1_000, () => 0)).toBe(2_500);
    expect(retryDelayMs(1, 50, 5 * HOUR, () => 0)).toBe(HOUR);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    [null, 0],
    ['120', 120_000],
    [' 3 ', 3_000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['soon', 0],
    ['-5', 0],
  ])('%o is %d ms', (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });
});
