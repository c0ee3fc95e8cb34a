// bench/pageWork.mjs, the measure of how long one v2 page holds the event loop (docs/performance.md), run
// small so that it keeps working. Its figures mean nothing here: nothing in the suite is timed.
import { describe, expect, it } from 'vitest';
import { runScript } from '../support/processes.js';

describe('bench/pageWork.mjs', () => {
  it('walks pages of every filter that matches nothing, all empty, and prints a row for each', async () => {
    const { code, stdout, stderr } = await runScript(
      ['bench/pageWork.mjs'],
      { PAGE_WORK_ORDERS: '25000', PAGE_WORK_SECONDS: '1' },
      120_000,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^\| Filters \(matching none of 25,000 orders\), limit 1,000 \|/m);
    const rows = stdout.match(
      /^\| .+ \| [\d.]+ \/ [\d.]+ ms \(\d+\) \| (?:[\d.]+ ms|—) \(\d+ pages\) \| \d+ ms \| [\d.]+ \/ [\d.]+ \/ [\d.]+ ms \|$/gm,
    );
    expect(rows).toHaveLength(4);
  }, 130_000);
});
