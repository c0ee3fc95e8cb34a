// The request quotas' shared count: wherever it is kept (a PostgreSQL database that servers on several
// machines share, or one machine's memory), leases taken at once by many processes never grant more than
// the limit leaves, units spent without a lease are counted whatever is left, and the count tells how many
// processes share it.
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryQuotaCount } from '../../src/http/quotaCount.js';
import type { QuotaLeaseRequest, QuotaStore } from '../../src/store/quotas.js';
import type { AdminStore } from '../../src/store/store.js';
import { scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

interface Count {
  name: string;
  available: boolean;
  /** `processes` counts that share one count, as servers on one database do. */
  open(processes: number): Promise<{ counts: QuotaStore[]; close(): Promise<void> }>;
}

const COUNTS: Count[] = [
  {
    name: 'memory',
    available: true,
    open(processes) {
      const count = new MemoryQuotaCount();
      return Promise.resolve({ counts: Array.from({ length: processes }, () => count), close: () => Promise.resolve() });
    },
  },
  // Each backend whose servers share the count in their database.
  ...STORE_BACKENDS.filter(({ sharedQuotas }) => sharedQuotas).map(({ kind, available }) => ({
    name: kind,
    available,
    async open(processes: number) {
      const database = await scratchDatabase(kind);
      const stores: AdminStore[] = [];
      for (let i = 0; i < processes; i++) stores.push(await database.open());
      return {
        counts: stores.map((store) => store.quotas as QuotaStore),
        close: async () => {
          for (const store of stores) await store.close();
          await database.drop();
        },
      };
    },
  })),
];

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const count of opened) await count.close();
});

/** `processes` counts on one new shared count, closed after the file's tests. */
async function shared(count: Count, processes: number): Promise<QuotaStore[]> {
  const open = await count.open(processes);
  opened.push(open);
  return open.counts;
}

const request = (overrides: Partial<QuotaLeaseRequest>): QuotaLeaseRequest => ({
  quota: 'per-key',
  subject: '42',
  windowStart: 1_800_000_000_000,
  windowSeconds: 60,
  want: 10,
  spent: 0,
  limit: 100,
  processId: 'p0',
  ...overrides,
});

describe.each(COUNTS)('the quota count in $name', (count) => {
  const { available } = count;
  it.skipIf(!available)('grants at most what the limit leaves, however many processes lease at once', async () => {
    const counts = await shared(count, 4);
    const leases = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (counts[i % 4] as QuotaStore).lease(request({ want: 7, processId: `p${i % 4}` }))),
    );
    const granted = leases.reduce((sum, { granted }) => sum + granted, 0);
    expect(granted).toBe(100);
    expect(Math.max(...leases.map(({ used }) => used))).toBe(100);
    expect(leases.every(({ granted: one }) => one === 0 || one === 7 || one === 100 % 7)).toBe(true);
    expect(leases.at(-1)?.processes).toBeGreaterThanOrEqual(1);
  });

  it.skipIf(!available)('counts spent units whatever is left, and keeps quotas, subjects and windows apart', async () => {
    const [one] = (await shared(count, 1)) as [QuotaStore];
    expect(await one.lease(request({ want: 99, spent: 1 }))).toMatchObject({ granted: 99, used: 100 });
    expect(await one.lease(request({ want: 5, spent: 1 }))).toMatchObject({ granted: 0, used: 101 });
    expect(await one.lease(request({ subject: '43' }))).toMatchObject({ granted: 10, used: 10 });
    expect(await one.lease(request({ quota: 'auth-failures' }))).toMatchObject({ granted: 10, used: 10 });
    expect(await one.lease(request({ windowStart: 1_800_000_060_000 }))).toMatchObject({ granted: 10, used: 10 });
  });

  it.skipIf(!available)('tells how many processes took a lease in this window or the one before', async () => {
    const [one] = (await shared(count, 1)) as [QuotaStore];
    const at = 1_800_000_000_000;
    await one.lease(request({ processId: 'a', windowStart: at - 120_000 }));
    await one.lease(request({ processId: 'b', windowStart: at - 60_000 }));
    expect((await one.lease(request({ processId: 'c', windowStart: at }))).processes).toBe(2);
  });
});
