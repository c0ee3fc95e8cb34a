import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { recordSelectedFiles, testFilesNeeding, testFilesShowing } from './test/support/setupNeeds.js';

// `VITEST_SUITE=faults` runs test/chaos apart from the rest of the suite (npm test runs it beside the passes
// through Prism and PostgreSQL, not beside the suite), two files at a time: its files wait on restarts,
// kill rounds, readers that never read and idle time-outs for most of their minutes, and what each proves it
// reads from what the server did, under whatever else runs (the soak loads the server at 70% of the
// capacity it measured under that load). `npm run chaos`, whose full-size figures are read, one at a time.
const faults = process.env.VITEST_SUITE === 'faults';
// With CHAOS=1 (`npm run chaos`) the fault suite takes in every test whose size test/support/sizes.ts sets,
// all at full size: PostgreSQL's kills and restarts and the delivery by many processes too.
const chaos = faults && process.env.CHAOS === '1';
// `VITEST_SUITE=postgres` (npm run test:postgres, with TEST_STORE=postgres) runs the files whose servers use
// the store against PostgreSQL: every operation, the checks that read it (authentication, conditional
// requests, quotas, probes), and the faults only PostgreSQL has. The rest of the HTTP suite answers
// before the store is reached, the same on either backend.
const postgres = process.env.VITEST_SUITE === 'postgres';
const onPostgres = [
  'test/operations/**/*.test.ts',
  'test/http/auth.test.ts',
  'test/http/scopes.test.ts',
  'test/http/keyUses.test.ts',
  'test/http/conditional.test.ts',
  'test/http/rateLimits.test.ts',
  // Its probes, which read the store.
  'test/http/routing.test.ts',
  'test/postgres/**/*.test.ts',
  // WORKERS=2 on PostgreSQL: a worker killed, or the workers stopped, while their writes are in flight.
  'test/workers.test.ts',
];
const prism = process.env.CONTRACT_PROXY === 'prism';
// The Prism pass (`npm run test:prism`) runs again the files that send requests through the contract client
// (test/support/http.ts), which it puts Prism in front of: read from the files and the test modules they
// import (test/support/setupNeeds.ts), so a file that sends none is never run twice for nothing.
// These send some, yet Prism adds nothing to them, so they run directly only (test/scripts/testPrism.test.ts
// holds each entry to a file that sends):
export const directOnly = [
  // The CLI's files prove what the CLI does; the few API calls they make to see its effect (a list, a
  // cancel, a pet, a message) are the ones test/operations sends through Prism already.
  'test/cli/**',
  // Only paths of no operation (/docs, /healthz, /metrics), which Prism does not carry.
  'test/docs/routes.test.ts',
  'test/package/version.test.ts',
  'test/workers.test.ts',
  // Preflights are OPTIONS requests no operation of the contract has.
  'test/http/cors.test.ts',
  // Every spelling and method of every operation, to see which reach a handler: their answers are
  // test/http/routing.test.ts's and the operations' own, which those send through Prism.
  'test/http/onePipeline.test.ts',
  // The bench's featured route beside the project: listOrders' answers, which test/operations sends through Prism.
  'test/scripts/featuredRoute.test.ts',
  // The process's start, stop and configuration: its one list is test/operations' own.
  'test/server.test.ts',
  // What the server does to sockets (late headers, idle and slow connections, the connection limit): through
  // the proxy the server would see Prism's sockets, not the client's. Its two calls are the operations' own.
  'test/http/slowClients.test.ts',
  // The metrics listener and what /metrics counts, a path of no operation; its calls are the operations' own.
  'test/telemetry/metricsListener.test.ts',
  // The line the server logs for each answered request, read from its process: the answers it logs are
  // the operations' own, which test/operations sends through Prism.
  'test/telemetry/requestLine.test.ts',
  // The spans servers of its own export to a collector on loopback: its requests go to them directly, and
  // their answers are the operations' own, which test/operations sends through Prism.
  'test/telemetry/traceExport.test.ts',
];
// `npm run test:node-line` (NODE_LINE_RUN=1, from scripts/test-all.mjs), which CI runs on each Node line but
// the machine's, leaves out the files whose outcome cannot depend on the line: those that check files (the
// contracts' generated files and breaking changes, the code's structure), the API reference's rendering in
// a browser (its routes are test/docs/routes.test.ts's, which runs), and the bench, run on the machine's line.
const nodeLineRun = process.env.NODE_LINE_RUN === '1';
export const sameOnEveryLine = [
  'test/scripts/checkGenerated.test.ts',
  'test/scripts/breakingChanges.test.ts',
  'test/code/**',
  'test/docs/docs.test.ts',
  'test/scripts/bench.test.ts',
];
// VITEST_REPORT names the report of a run inside a run (test/chaos/packageScripts), which must not
// overwrite the report .ci/run reads.
const report =
  process.env.VITEST_REPORT ||
  (chaos ? 'vitest-chaos' : faults ? 'vitest-faults' : postgres ? 'vitest-postgres' : prism ? 'vitest-prism' : 'vitest');

/** The test files the run takes in. */
function included(): string[] {
  if (chaos) return ['test/chaos/**/*.test.ts', ...testFilesShowing(/\/sizes\.js['"]/)];
  if (faults) return ['test/chaos/**/*.test.ts'];
  if (postgres) return onPostgres;
  if (prism) return testFilesNeeding('prism');
  return ['test/**/*.test.ts'];
}

export default defineConfig({
  test: {
    include: included(),
    exclude:
      faults || postgres
        ? []
        : ['test/chaos/**', 'test/postgres/**', 'node_modules/**', ...(prism ? directOnly : []), ...(nodeLineRun ? sameOnEveryLine : [])],
    fileParallelism: !chaos,
    // The files of a worker share its modules: each no longer loads Fastify, Ajv, the drivers and the
    // contracts anew, nor migrates its own template database (a quarter of the suite's CPU). What a test
    // relies on is its own: its servers, databases, keys and folders.
    isolate: false,
    // Most files spend their time waiting on servers, sockets and timers: three of them at once keep two
    // cores busy (a clean CI run used 56% of them with two), where vitest would run one file at a time.
    // The PostgreSQL run too: its longest file (PostgreSQL's faults) waits on restarts and processes for
    // most of its minutes, which the rest of its files then no longer queue behind. The fault suite: above.
    maxWorkers: chaos ? 1 : faults ? 2 : Math.max(3, availableParallelism() - 1),
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
