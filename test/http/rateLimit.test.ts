// The shared quota on its own, with the clock in the test's hand and the shared count in memory (a store
// that answers as each backend's lease does): what it admits, alone and as one of many processes, when a
// window starts over, how far its memory goes, what it does when the count cannot be reached, and the exact
// header texts a client reads.
import { describe, expect, it } from 'vitest';
import { tooManyRequests } from '../../src/http/rateLimit.js';
import { SharedQuota } from '../../src/http/sharedQuota.js';
import type { QuotaLease, QuotaLeaseRequest, QuotaStore } from '../../src/store/quotas.js';

/** How many subjects a quota remembers in one window (MAX_TRACKED in sharedQuota.ts). */
const MAX_TRACKED = 100_000;

/** The shared count as the backends keep it: per quota, subject and window, and the processes seen. */
class SharedCount implements QuotaStore {
  readonly windows = new Map<string, number>();
  readonly seen = new Map<string, number>();
  leases = 0;
  /** Set to make every lease fail, as a store that cannot be reached does. */
  down = false;

  lease(request: QuotaLeaseRequest): Promise<QuotaLease> {
    this.leases++;
    if (this.down) return Promise.reject(new Error('the database is unavailable'));
    const { quota, subject, windowStart, windowSeconds, want, spent, limit, processId } = request;
    const key = `${quota}/${subject}/${windowStart}`;
    const before = this.windows.get(key) ?? 0;
    const granted = Math.min(want, Math.max(0, limit - before - spent));
    const used = before + spent + granted;
    this.windows.set(key, used);
    this.seen.set(processId, Math.max(this.seen.get(processId) ?? 0, windowStart));
    const since = windowStart - windowSeconds * 1000;
    const processes = [...this.seen.values()].filter((seenAt) => seenAt >= since).length;
    return Promise.resolve({ granted, used, processes });
  }
}

/** A quota of `limit` requests per window whose clock reads `clock.now`, in milliseconds since the epoch. */
function quotaOf(limit: number, windowSeconds = 60, shared = new SharedCount(), processId = 'p1') {
  const clock = { now: 0 };
  return { clock, shared, quota: new SharedQuota('per-key', limit, windowSeconds, shared, processId, () => clock.now) };
}

const take = async (quota: SharedQuota, subject = 'k') => await quota.take(subject);

describe('SharedQuota, in one process', () => {
  it('is off at limit 0 and on at any positive limit', () => {
    expect(quotaOf(0).quota.enabled).toBe(false);
    expect(quotaOf(1).quota.enabled).toBe(true);
  });

  it('allows `limit` requests in a window and refuses the next, counting down what remains', async () => {
    const { quota } = quotaOf(3);
    const states = [];
    for (let i = 0; i < 5; i++) states.push(await take(quota));
    expect(states.map(({ allowed }) => allowed)).toEqual([true, true, true, false, false]);
    expect(states.map(({ headers }) => headers.ratelimit)).toEqual([
      '"per-key";r=2;t=60',
      '"per-key";r=1;t=60',
      '"per-key";r=0;t=60',
      '"per-key";r=0;t=60',
      '"per-key";r=0;t=60',
    ]);
  });

  it('admits the first request at once, without waiting for the shared count, and counts it there', async () => {
    const { quota, shared } = quotaOf(100);
    const first = quota.take('k');
    expect(first).not.toBeInstanceOf(Promise);
    expect(shared.leases).toBe(1);
    await Promise.resolve();
    // The lease that followed counted it, and took a tenth of what was left.
    expect([...shared.windows.values()]).toEqual([1 + 10]);
  });

  it('writes to the shared count only when it takes a block: a few leases for a whole window', async () => {
    const { quota, shared } = quotaOf(1_000);
    for (let i = 0; i < 1_000; i++) expect((await take(quota)).allowed).toBe(true);
    expect((await take(quota)).allowed).toBe(false);
    expect(shared.leases).toBeLessThan(100);
  });

  it('takes back a unit given back, for the next request: the limit still holds, and RateLimit tells it', async () => {
    const { quota, clock } = quotaOf(3);
    expect((await take(quota)).headers.ratelimit).toBe('"per-key";r=2;t=60');
    quota.giveBack('k');
    const after = [];
    for (let i = 0; i < 4; i++) after.push(await take(quota));
    expect(after.map(({ allowed }) => allowed)).toEqual([true, true, true, false]);
    expect(after[0]?.headers.ratelimit).toBe('"per-key";r=2;t=60');
    // A unit of a window past is gone with it.
    quota.giveBack('k');
    clock.now += 60_000;
    quota.giveBack('k');
    expect((await take(quota)).headers.ratelimit).toBe('"per-key";r=2;t=60');
  });

  it('counts each subject apart', async () => {
    const { quota } = quotaOf(1);
    expect((await take(quota, '1')).allowed).toBe(true);
    expect((await take(quota, '1')).allowed).toBe(false);
    expect((await take(quota, '2')).allowed).toBe(true);
    expect((await take(quota, '203.0.113.9')).allowed).toBe(true);
    expect((await take(quota, '203.0.113.9')).allowed).toBe(false);
  });

  it('says a subject is refused only once its window is spent, counting nothing', async () => {
    const { quota, shared } = quotaOf(2);
    expect(await quota.refused('a')).toBeUndefined();
    await take(quota, 'a');
    await take(quota, 'a');
    const leases = shared.leases;
    expect(await take(quota, 'a')).toMatchObject({ allowed: false });
    expect(await quota.refused('a')).toEqual({
      allowed: false,
      headers: { 'ratelimit-policy': '"per-key";q=2;w=60', ratelimit: '"per-key";r=0;t=60', 'retry-after': '60' },
    });
    expect(await quota.refused('b')).toBeUndefined();
    expect(shared.leases).toBe(leases + 0);
  });

  it('starts every subject over when the clock enters the next window, and not before', async () => {
    const { clock, quota } = quotaOf(2);
    clock.now = 60_000 * 1000 + 59_999;
    await take(quota, 'a');
    await take(quota, 'a');
    expect((await take(quota, 'a')).allowed).toBe(false);
    expect((await quota.refused('a'))?.allowed).toBe(false);
    clock.now += 1;
    expect(await quota.refused('a')).toBeUndefined();
    expect(await take(quota, 'a')).toEqual({
      allowed: true,
      headers: { 'ratelimit-policy': '"per-key";q=2;w=60', ratelimit: '"per-key";r=1;t=60' },
    });
  });

  it('aligns windows on the clock, not on the first request', async () => {
    const { clock, quota } = quotaOf(1, 10);
    clock.now = 25_000;
    expect((await take(quota)).headers.ratelimit).toBe('"per-key";r=0;t=5');
    clock.now = 29_999;
    expect((await take(quota)).allowed).toBe(false);
    clock.now = 30_000;
    expect((await take(quota)).allowed).toBe(true);
  });

  it.each([
    [0, 60],
    [1, 60],
    [12_300, 48],
    [12_700, 48],
    [59_000, 1],
    [59_001, 1],
    [59_999, 1],
  ])('at %i ms into a 60 s window, says the window resets in %i s', async (offset, seconds) => {
    const { clock, quota } = quotaOf(1);
    clock.now = 1_800_000_000_000 + offset; // a whole number of minutes since the epoch, plus the offset
    expect((await take(quota)).headers.ratelimit).toBe(`"per-key";r=0;t=${seconds}`);
    expect((await take(quota)).headers['retry-after']).toBe(String(seconds));
  });

  it('writes the exact RateLimit-Policy and RateLimit texts, and Retry-After only when refused', async () => {
    const clock = { now: 7_000 };
    const quota = new SharedQuota('auth-failures', 1, 300, new SharedCount(), 'p1', () => clock.now);
    expect(await quota.take('x')).toEqual({
      allowed: true,
      headers: { 'ratelimit-policy': '"auth-failures";q=1;w=300', ratelimit: '"auth-failures";r=0;t=293' },
    });
    expect(await quota.take('x')).toEqual({
      allowed: false,
      headers: {
        'ratelimit-policy': '"auth-failures";q=1;w=300',
        ratelimit: '"auth-failures";r=0;t=293',
        'retry-after': '293',
      },
    });
  });

  describe(`once ${MAX_TRACKED} subjects are counted in a window`, () => {
    async function fullQuota(limit: number) {
      const { clock, quota } = quotaOf(limit);
      for (let subject = 0; subject < MAX_TRACKED; subject++) void quota.take(String(subject));
      await new Promise((resolve) => setImmediate(resolve));
      return { clock, quota };
    }

    it('does not count a new subject, so a flood of new ones locks nobody out', async () => {
      const { quota } = await fullQuota(1);
      for (let i = 0; i < 3; i++) {
        expect(await take(quota, 'newcomer')).toMatchObject({ allowed: true, headers: { ratelimit: '"per-key";r=1;t=60' } });
        expect(await quota.refused('newcomer')).toBeUndefined();
      }
    });

    it('still counts the subjects it holds', async () => {
      const { quota } = await fullQuota(2);
      expect((await take(quota, '0')).allowed).toBe(true);
      expect((await take(quota, '0')).allowed).toBe(false);
    });

    it('counts new subjects again in the next window', async () => {
      const { clock, quota } = await fullQuota(1);
      clock.now += 60_000;
      expect((await take(quota, 'newcomer')).allowed).toBe(true);
      expect((await take(quota, 'newcomer')).allowed).toBe(false);
    });
  });
});

describe('SharedQuota, as one of many processes on one shared count', () => {
  it.each([
    [100, 3, 40],
    [100, 6, 200],
    [20, 2, 50],
    [1, 4, 8],
  ])('admits at most the limit (%i) plus one request per process (%i), however many come at once (%i each)', async (limit, processes, each) => {
    const shared = new SharedCount();
    const clock = { now: 120_000 };
    const quotas = Array.from(
      { length: processes },
      (_, i) => new SharedQuota('per-key', limit, 60, shared, `p${i}`, () => clock.now),
    );
    // Every process gets its requests all at once, before any lease has come back.
    const states = await Promise.all(
      quotas.flatMap((quota) => Array.from({ length: each }, async () => await quota.take('k'))),
    );
    const admitted = states.filter(({ allowed }) => allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(Math.min(limit, processes * each));
    expect(admitted).toBeLessThanOrEqual(limit + processes);
    // A refusal tells the truth: nothing is left.
    for (const { allowed, headers } of states) if (!allowed) expect(headers.ratelimit).toBe('"per-key";r=0;t=60');
  });

  it('leaves fewer unspent units with a process as the quota runs out: blocks are a tenth of what is left', async () => {
    const shared = new SharedCount();
    const quotas = [0, 1].map((i) => new SharedQuota('per-key', 1_000, 60, shared, `p${i}`, () => 0));
    for (let i = 0; i < 900; i++) await quotas[i % 2]?.take('k');
    const blocks: number[] = [];
    const lease = shared.lease.bind(shared);
    shared.lease = async (request) => {
      const answer = await lease(request);
      blocks.push(answer.granted);
      return answer;
    };
    for (let i = 0; i < 200; i++) await quotas[i % 2]?.take('k');
    expect(Math.max(...blocks)).toBeLessThanOrEqual(10);
  });

  it('when the shared count cannot be reached, admits its share: the limit over the processes seen lately', async () => {
    const shared = new SharedCount();
    const quotas = [0, 1, 2, 3].map((i) => new SharedQuota('per-key', 100, 60, shared, `p${i}`, () => 0));
    // Each process leases on other subjects first: by the second round the store tells each there are four.
    for (const subject of ['warm', 'again']) {
      for (const quota of quotas) void quota.take(subject);
      await new Promise((resolve) => setImmediate(resolve));
    }
    shared.down = true;
    const one = quotas[0] as SharedQuota;
    let admitted = 0;
    for (let i = 0; i < 100; i++) if ((await one.take('k')).allowed) admitted++;
    expect(admitted).toBe(25);
  });
});

describe('tooManyRequests', () => {
  it('is a 429 too_many_requests Error body carrying the quota headers', async () => {
    const { quota } = quotaOf(1);
    await take(quota);
    const state = await take(quota);
    expect(tooManyRequests(state, 'Too many requests for this API key; retry later')).toEqual({
      status: 429,
      body: {
        code: 'too_many_requests',
        message: 'Too many requests for this API key; retry later',
        status: 429,
      },
      headers: {
        'ratelimit-policy': '"per-key";q=1;w=60',
        ratelimit: '"per-key";r=0;t=60',
        'retry-after': '60',
      },
    });
  });
});
