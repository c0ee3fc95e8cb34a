import { defineConfig } from 'vitest/config';

// `VITEST_SUITE=faults` runs test/chaos alone, one file at a time: crashes, lock holders, full disks and a
// soak under load would disturb each other's figures, and the rest of the suite.
const faults = process.env.VITEST_SUITE === 'faults';
// VITEST_REPORT names the report of a run inside a run (test/chaos/packageScripts), which must not
// overwrite the report .ci/run reads.
const report =
  process.env.VITEST_REPORT ||
  (faults ? 'vitest-faults' : process.env.CONTRACT_PROXY === 'prism' ? 'vitest-prism' : 'vitest');

export default defineConfig({
  test: {
    include: faults ? ['test/chaos/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: faults ? [] : ['test/chaos/**', 'node_modules/**'],
    fileParallelism: !faults,
    globalSetup: faults
      ? ['test/support/buildOnce.ts']
      : ['test/support/buildOnce.ts', 'test/support/generateHeyApiSdk.ts', 'test/support/prismProxy.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: `test-artifacts/${report}.json` }]],
  },
});
