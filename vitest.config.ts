import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/buildOnce.ts', 'test/support/generateHeyApiSdk.ts', 'test/support/prismProxy.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: [
      'default',
      ['json', { outputFile: `test-artifacts/vitest${process.env.CONTRACT_PROXY === 'prism' ? '-prism' : ''}.json` }],
    ],
  },
});
