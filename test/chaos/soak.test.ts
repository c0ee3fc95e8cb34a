// Soak: mixed load at about 70% of the capacity measured first, for SOAK_SECONDS (test/support/sizes.ts: 20
// every run, 600 in `npm run chaos`). No request may fail, memory must stay flat, and p99 is reported per
// window.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDatabase, writeReport } from '../support/faults.js';
import { mixedLoad } from '../support/load.mjs';
import { spawnServer } from '../support/processes.js';
import { size } from '../support/sizes.js';
import { type ScratchDatabase, scratchDatabase } from '../support/storeBackends.js';

const SOAK_SECONDS = size('SOAK_SECONDS');
// Two windows at least, however short the soak: memory is judged by comparing its halves.
const WINDOW_SECONDS = SOAK_SECONDS >= 300 ? 60 : Math.min(10, SOAK_SECONDS / 2);
const CONNECTIONS = 16;
const SHARE_OF_CAPACITY = 0.7;

let scratch: ScratchDatabase<'sqlite'>;
beforeAll(async () => {
  scratch = await scratchDatabase('sqlite', 'store-orders-soak-');
});
afterAll(() => scratch.drop());

/** The server's JS heap in use and allocated, from its own /metrics (prom-client's process metrics). */
async function heapMiB(baseUrl: string): Promise<{ heapUsedMiB: number; heapTotalMiB: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(text)?.[1]) / 2 ** 20;
  return {
    heapUsedMiB: Math.round(gauge('nodejs_heap_size_used_bytes')),
    heapTotalMiB: Math.round(gauge('nodejs_heap_size_total_bytes')),
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

describe('soak', () => {
  it(
    `serves ${SOAK_SECONDS} s of mixed load at ${SHARE_OF_CAPACITY * 100}% of capacity without an error, with flat memory`,
    async () => {
      const dbPath = scratch.location.path;
      const { key } = await prepareDatabase(dbPath, 1_000);
      const server = await spawnServer({ DATABASE_URL: dbPath, LOG_LEVEL: 'warn' }, { init: false });
      const pid = server.child.pid as number;
      try {
        // The first seconds warm the server up; they also measure what it can do flat out.
        const capacity = await mixedLoad({
          baseUrl: server.baseUrl,
          key,
          seconds: 5,
          connections: CONNECTIONS,
          rate: 0,
        });
        const rate = Math.floor(capacity.perSecond * SHARE_OF_CAPACITY);
        const rssStartMiB = rssMiB(pid);
        const windows: (Awaited<ReturnType<typeof mixedLoad>> & {
          rssMiB: number;
          heapUsedMiB: number;
          heapTotalMiB: number;
        })[] = [];
        for (let elapsed = 0; elapsed < SOAK_SECONDS; elapsed += WINDOW_SECONDS) {
          const window = await mixedLoad({
            baseUrl: server.baseUrl,
            key,
            seconds: Math.min(WINDOW_SECONDS, SOAK_SECONDS - elapsed),
            connections: CONNECTIONS,
            rate,
          });
          windows.push({ ...window, rssMiB: Math.round(rssMiB(pid)), ...(await heapMiB(server.baseUrl)) });
        }
        const rssEndMiB = rssMiB(pid);
        const totals = {
          requests: windows.reduce((sum, window) => sum + window.requests, 0),
          errors: windows.reduce((sum, window) => sum + window.errors + window.timeouts, 0),
          non2xx: windows.reduce((sum, window) => sum + window.non2xx, 0),
        };
        const report = {
          seconds: SOAK_SECONDS,
          windowSeconds: WINDOW_SECONDS,
          capacityPerSecond: Math.round(capacity.perSecond),
          ratePerSecond: rate,
          ...totals,
          rssStartMiB: Math.round(rssStartMiB),
          rssEndMiB: Math.round(rssEndMiB),
          heapUsedMiBPerWindow: windows.map((window) => window.heapUsedMiB),
          p99MsPerWindow: windows.map((window) => window.p99Ms),
          windows,
        };
        writeReport('soak', report);
        console.log(
          `soak: ${SOAK_SECONDS} s at ${rate} req/s (${SHARE_OF_CAPACITY * 100}% of ${Math.round(capacity.perSecond)}), ` +
            `${totals.requests} requests, ${totals.errors} errors, ${totals.non2xx} non-2xx, ` +
            `RSS ${Math.round(rssStartMiB)} → ${Math.round(rssEndMiB)} MiB, heap in use per window ${report.heapUsedMiBPerWindow.join(', ')} MiB, p99 per ${WINDOW_SECONDS} s: ${report.p99MsPerWindow.join(', ')} ms`,
        );
        expect(totals.errors).toBe(0);
        expect(totals.non2xx).toBe(0);
        // How many requests the load reached is the machine's speed (the load generator shares it); that the
        // server kept answering is the server's: every window has answers.
        expect(windows.map((window) => window.requests > 0)).toEqual(windows.map(() => true));
        // Flat. V8 grows its heap in steps under load (on Node 24 from about 90 to 155 MiB within the first
        // minute), so RSS alone cannot tell warm-up from a leak. Live JS objects can: the lowest heap in use
        // seen in the second half must not exceed the first half's lowest by more than noise. RSS gets a
        // gross bound, for memory outside the JS heap.
        const half = Math.floor(windows.length / 2);
        const lowestHeap = (part: typeof windows) => Math.min(...part.map((window) => window.heapUsedMiB));
        expect(lowestHeap(windows.slice(half))).toBeLessThan(lowestHeap(windows.slice(0, half)) + 32);
        expect(rssEndMiB).toBeLessThan(rssStartMiB * 2 + 32);
      } finally {
        server.child.kill('SIGTERM');
        await server.finished;
      }
    },
    // A hang guard: the load runs for SOAK_SECONDS whatever the machine; setting up may take minutes on a
    // busy one.
    SOAK_SECONDS * 1000 + 180_000,
  );
});
