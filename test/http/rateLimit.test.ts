// The fixed-window quota on its own, with the clock in the test's hand: what it counts, when a window
// starts over, how far its memory goes, and the exact header texts a client reads.
import { describe, expect, it } from 'vitest';
import { FixedWindowQuota, tooManyRequests } from '../../src/http/rateLimit.js';

/** How many partitions a quota remembers in one window (MAX_TRACKED in rateLimit.ts). */
const MAX_TRACKED = 100_000;

/** A quota of `limit` requests per minute whose clock reads `clock.now`, in milliseconds since the epoch. */
function quotaOf(limit: number, windowSeconds = 60) {
  const clock = { now: 0 };
  return { clock, quota: new FixedWindowQuota('per-key', limit, windowSeconds, () => clock.now) };
}

describe('FixedWindowQuota', () => {
  it('is off at limit 0 and on at any positive limit', () => {
    expect(quotaOf(0).quota.enabled).toBe(false);
    expect(quotaOf(1).quota.enabled).toBe(true);
  });

  it('allows `limit` hits in a window and refuses the next, counting down what remains', () => {
    const { quota } = quotaOf(3);
    const states = [1, 2, 3, 4, 5].map(() => quota.hit(7));
    expect(states.map(({ allowed }) => allowed)).toEqual([true, true, true, false, false]);
    expect(states.map(({ headers }) => headers.RateLimit)).toEqual([
      '"per-key";r=2;t=60',
      '"per-key";r=1;t=60',
      '"per-key";r=0;t=60',
      '"per-key";r=0;t=60',
      '"per-key";r=0;t=60',
    ]);
  });

  it('counts each partition apart', () => {
    const { quota } = quotaOf(1);
    expect(quota.hit(1).allowed).toBe(true);
    expect(quota.hit(1).allowed).toBe(false);
    expect(quota.hit(2).allowed).toBe(true);
    expect(quota.hit('203.0.113.9').allowed).toBe(true);
    expect(quota.hit('203.0.113.9').allowed).toBe(false);
  });

  it('peek says whether one more request would pass, and counts nothing; an allowing peek carries no fields', () => {
    const { quota } = quotaOf(2);
    for (let i = 0; i < 5; i++) {
      expect(quota.peek('a')).toEqual({ allowed: true, headers: {} });
    }
    quota.hit('a');
    expect(quota.peek('a')).toEqual({ allowed: true, headers: {} });
    quota.hit('a');
    expect(quota.peek('a')).toEqual({
      allowed: false,
      headers: {
        'RateLimit-Policy': '"per-key";q=2;w=60',
        RateLimit: '"per-key";r=0;t=60',
        'Retry-After': '60',
      },
    });
    // A refused hit of its own is what a peek foretold.
    expect(quota.hit('a').allowed).toBe(false);
  });

  it('starts every partition over when the clock enters the next window, and not before', () => {
    const { clock, quota } = quotaOf(2);
    clock.now = 60_000 * 1000 + 59_999;
    quota.hit('a');
    quota.hit('a');
    expect(quota.hit('a').allowed).toBe(false);
    expect(quota.peek('a').allowed).toBe(false);
    clock.now += 1;
    expect(quota.peek('a').allowed).toBe(true);
    expect(quota.hit('a')).toEqual({
      allowed: true,
      headers: { 'RateLimit-Policy': '"per-key";q=2;w=60', RateLimit: '"per-key";r=1;t=60' },
    });
  });

  it('aligns windows on the clock, not on the first request', () => {
    const { clock, quota } = quotaOf(1, 10);
    clock.now = 25_000;
    expect(quota.hit('a').headers.RateLimit).toBe('"per-key";r=0;t=5');
    clock.now = 29_999;
    expect(quota.hit('a').allowed).toBe(false);
    clock.now = 30_000;
    expect(quota.hit('a').allowed).toBe(true);
  });

  it.each([
    [0, 60],
    [1, 60],
    [12_300, 48],
    [12_700, 48],
    [59_000, 1],
    [59_001, 1],
    [59_999, 1],
  ])('at %i ms into a 60 s window, says the window resets in %i s', (offset, seconds) => {
    const { clock, quota } = quotaOf(1);
    clock.now = 1_800_000_000_000 + offset; // a whole number of minutes since the epoch, plus the offset
    expect(quota.hit('a').headers.RateLimit).toBe(`"per-key";r=0;t=${seconds}`);
    expect(quota.hit('a').headers['Retry-After']).toBe(String(seconds));
  });

  it('writes the exact RateLimit-Policy and RateLimit texts, and Retry-After only when refused', () => {
    const clock = { now: 7_000 };
    const quota = new FixedWindowQuota('auth-failures', 1, 300, () => clock.now);
    expect(quota.hit('x')).toEqual({
      allowed: true,
      headers: { 'RateLimit-Policy': '"auth-failures";q=1;w=300', RateLimit: '"auth-failures";r=0;t=293' },
    });
    expect(quota.hit('x')).toEqual({
      allowed: false,
      headers: {
        'RateLimit-Policy': '"auth-failures";q=1;w=300',
        RateLimit: '"auth-failures";r=0;t=293',
        'Retry-After': '293',
      },
    });
  });

  describe(`once ${MAX_TRACKED} partitions are counted in a window`, () => {
    function fullQuota(limit: number) {
      const { clock, quota } = quotaOf(limit);
      for (let partition = 0; partition < MAX_TRACKED; partition++) quota.hit(partition);
      return { clock, quota };
    }

    it('does not count a new partition, so a flood of new ones locks nobody out', () => {
      const { quota } = fullQuota(1);
      for (let i = 0; i < 3; i++) {
        expect(quota.hit('newcomer')).toMatchObject({
          allowed: true,
          headers: { RateLimit: '"per-key";r=0;t=60' },
        });
        expect(quota.peek('newcomer').allowed).toBe(true);
      }
    });

    it('still counts the partitions it holds', () => {
      const { quota } = fullQuota(2);
      expect(quota.hit(0).allowed).toBe(true);
      expect(quota.hit(0).allowed).toBe(false);
      expect(quota.hit(MAX_TRACKED - 1).headers.RateLimit).toBe('"per-key";r=0;t=60');
    });

    it('counts new partitions again in the next window', () => {
      const { clock, quota } = fullQuota(1);
      clock.now += 60_000;
      expect(quota.hit('newcomer').allowed).toBe(true);
      expect(quota.hit('newcomer').allowed).toBe(false);
    });
  });
});

describe('tooManyRequests', () => {
  it('is a 429 too_many_requests Error body carrying the quota headers', () => {
    const { quota } = quotaOf(1);
    quota.hit(1);
    const state = quota.hit(1);
    expect(tooManyRequests(state, 'Too many requests for this API key; retry later')).toEqual({
      status: 429,
      body: {
        code: 'too_many_requests',
        message: 'Too many requests for this API key; retry later',
        status: 429,
      },
      headers: {
        'RateLimit-Policy': '"per-key";q=1;w=60',
        RateLimit: '"per-key";r=0;t=60',
        'Retry-After': '60',
      },
    });
  });
});
