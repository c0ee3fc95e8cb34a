import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { recordSelectedFiles } from './test/support/setupNeeds.js';

// `VITEST_SUITE=faults` runs test/chaos alone, one file at a time: crashes, lock holders, full disks and a
// soak under load would disturb each other's figures, and the rest of the suite.
const faults = process.env.VITEST_SUITE === 'faults';
// `VITEST_SUITE=postgres` (npm run test:postgres, with TEST_STORE=postgres) runs the files whose servers use
// the store against PostgreSQL: every operation, the checks that read it (authentication, conditional
// requests, quotas, probes), and the faults only PostgreSQL has. The rest of the HTTP suite answers
// before the store is reached, the same on either backend.
const postgres = process.env.VITEST_SUITE === 'postgres';
const onPostgres = [
  'test/operations/**/*.test.ts',
  'test/http/auth.test.ts',
  'test/http/conditional.test.ts',
  'test/http/rateLimits.test.ts',
  'test/http/routing.test.ts',
  'test/postgres/**/*.test.ts',
  // WORKERS=2 on PostgreSQL: the workers answer, a killed one is replaced, a signal stops them all.
  'test/workers.test.ts',
];
const prism = process.env.CONTRACT_PROXY === 'prism';
// The Prism pass (`npm run test:prism`) runs again the files that send requests through the contract
// client (test/support/http.ts). These send none, only raw bytes that never pass through Prism, or
// requests Prism cannot proxy (the docs page, a packed install, the generated fuzz), so a second run of
// them proves nothing.
// The CLI's files prove what the CLI does; the few API calls they make to see its effect (a list, a
// cancel, a pet, a message) are the ones test/operations sends through Prism already.
const notThroughPrism = [
  'test/cli/**',
  'test/base62.test.ts',
  'test/code/**',
  'test/config.test.ts',
  'test/contract/deprecation.test.ts',
  'test/contract/errorCodes.test.ts',
  'test/contract/parsedContract.test.ts',
  'test/contract/servers.test.ts',
  'test/contract/generatedRequests.test.ts',
  'test/contract/generatedRequestsClient.test.ts',
  'test/contract/instants.test.ts',
  'test/contract/types.test.ts',
  'test/docs/**',
  'test/http/body.test.ts',
  'test/http/conditional.test.ts',
  // Preflights are OPTIONS requests no operation of the contract has.
  'test/http/cors.test.ts',
  'test/http/duplicateKeys.test.ts',
  'test/http/framing.test.ts',
  'test/http/onePipeline.test.ts',
  'test/http/operationTable.test.ts',
  'test/http/rateLimit.test.ts',
  'test/http/readJsonBody.test.ts',
  'test/http/validationMessages.test.ts',
  'test/keys.test.ts',
  'test/operations/listOrdersBackpressure.test.ts',
  'test/operations/v2/pageCursor.test.ts',
  'test/package/**',
  'test/scripts/**',
  'test/serving/**',
  'test/server.test.ts',
  'test/store/**',
  // Server processes of their own, which the Prism proxy does not stand in front of.
  'test/scale/**',
  'test/contract/webhooks.test.ts',
  'test/telemetry/deprecatedCalls.test.ts',
  'test/telemetry/logFormat.test.ts',
  'test/telemetry/logs.test.ts',
  'test/telemetry/metricsTable.test.ts',
  'test/workers.test.ts',
];
// VITEST_REPORT names the report of a run inside a run (test/chaos/packageScripts), which must not
// overwrite the report .ci/run reads.
const report =
  process.env.VITEST_REPORT ||
  (faults ? 'vitest-faults' : postgres ? 'vitest-postgres' : prism ? 'vitest-prism' : 'vitest');

export default defineConfig({
  test: {
    include: faults ? ['test/chaos/**/*.test.ts'] : postgres ? onPostgres : ['test/**/*.test.ts'],
    exclude:
      faults || postgres ? [] : ['test/chaos/**', 'test/postgres/**', 'node_modules/**', ...(prism ? notThroughPrism : [])],
    fileParallelism: !faults,
    // Most files spend their time waiting on servers, sockets and timers: three of them at once keep two
    // cores busy (a clean CI run used 56% of them with two), where vitest would run one file at a time.
    // The PostgreSQL run keeps two, since its server shares the cores with theirs.
    maxWorkers: faults ? 1 : Math.max(postgres ? 2 : 3, availableParallelism() - 1),
    // Each runs only when the selected files need it (test/support/setupNeeds.ts): the build when one runs
    // dist/, the hey-api SDKs when one imports them, Prism in the pass through Prism.
    globalSetup: faults || postgres
      ? ['test/support/buildOnce.ts']
      : ['test/support/buildOnce.ts', 'test/support/generateHeyApiSdk.ts', 'test/support/prismProxy.ts'],
    // Hang guards, not speed checks: a test that is merely slow on a machine busy with other work must not
    // fail. What a test proves about time, it reads from what the server did.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" line. The recorder tells the global
    // set-ups which files the run selected.
    reporters: ['default', ['json', { outputFile: `test-artifacts/${report}.json` }], recordSelectedFiles],
  },
});
