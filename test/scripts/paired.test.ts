// bench/paired.mjs, the paired measure of CPU per request (docs/performance.md), run small so that it keeps
// working: two starts of one round, at the smoke run's low request rate. Its figures mean nothing here.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('bench/paired.mjs', () => {
  it('starts each contender afresh twice and prints its CPU per request against the first, over all starts and start by start', async () => {
    const build = `${root}dist/main.js`;
    const { code, stdout, stderr } = await runScript(
      ['bench/paired.mjs', 'project', build, 'featuredRoute'],
      { BENCH_SMOKE: '1', BENCH_START_TIMEOUT_MS: '300000', PAIRED_STARTS: '2', PAIRED_ROUNDS: '1', PAIRED_REQUESTS: '100' },
      300_000,
    );
    expect(code, stderr).toBe(0);
    const rows = stdout.match(/^\| (\S+) \| [\d.]+ \| [\d.]+ \| [\d.]+, [\d.]+ \| ([\d.]+)× \| ([\d.]+)× \|$/gm) ?? [];
    expect(rows.map((row) => row.split(' | ')[0]?.slice(2))).toEqual(['project', build, 'featuredRoute']);
    expect(rows[0]).toMatch(/ 1\.000× \| 1\.000× \|$/);
  }, 310_000);
});
