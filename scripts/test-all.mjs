// npm test: every check, one stage after another, but for the PostgreSQL run, which goes beside the pass
// through Prism. A stage that fails does not stop the others, so one run reports every failure; the run
// exits 1 if any stage failed. Only the test stages wait on the build: without dist/ their global set-up
// would only run the failed build again, so they are reported as not run.
// At the end, one line per stage: its result and how long it took.
// `--node-line` (npm run test:node-line, which CI runs on each Node.js line but the machine's) runs only the
// stages whose outcome can depend on the Node.js version: the build and the tests, not the checks of files.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The stages in order: the npm script each runs, the stage it cannot run without, (`alongside`) the stage
 * before it that it runs beside rather than after, and (`nodeLine`) whether its outcome can depend on the
 * Node.js version, which puts it in `--node-line`'s run.
 *
 * The pass through Prism mostly waits on the proxy, and the PostgreSQL run on PostgreSQL: side by side they
 * share the cores the fault suite, which measures the server's capacity, keeps to itself.
 *
 * The lints, the contract's checks and tsc read files, the same on every line; the pass through Prism checks
 * the contract on the wire, which the suite already validates every answer against on each line; the
 * PostgreSQL run is the machine line's, for time. The fault suite is a line's own: signals, exits, kill -9
 * and restarts of a native module, the HTTP server's timeouts, full disks and memory under load are Node's.
 */
export const STAGES = [
  { script: 'lint' },
  { script: 'check:generated' },
  { script: 'check:breaking' },
  { script: 'typecheck' },
  { script: 'build', nodeLine: true },
  { script: 'test:only', after: 'build', nodeLine: true },
  { script: 'test:contract-tools', after: 'build' },
  { script: 'test:faults', after: 'build', nodeLine: true },
  { script: 'test:prism', after: 'build' },
  { script: 'test:postgres', after: 'build', alongside: 'test:prism' },
];

/** 42 s, or 8 min 05 s. */
function duration(ms) {
  const total = Math.round(ms / 1000);
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`;
}

/** Resolves with the stage's result once it ended; at once when it cannot run. */
function runStage({ script, after }, results) {
  const needed = after && results.find((result) => result.script === after);
  if (needed && needed.status !== 'passed') {
    const note = `needs ${after}, which ${needed.status === 'failed' ? 'failed' : 'did not run'}`;
    return Promise.resolve({ script, status: 'not run', note, ms: 0 });
  }
  console.log(`\n> npm run ${script}\n`);
  const started = performance.now();
  return new Promise((resolve) => {
    const run = spawn('npm', ['run', script], { stdio: 'inherit' });
    const ended = (status, signal, error) => {
      // Ctrl-C never gets here: it reaches this process too, which stops at once.
      const note = error?.message ?? (signal ? `killed by ${signal}` : status === 0 ? '' : `exit ${status}`);
      resolve({ script, status: status === 0 ? 'passed' : 'failed', note, ms: performance.now() - started });
    };
    run.on('error', (error) => ended(null, null, error));
    run.on('close', (status, signal) => ended(status, signal));
  });
}

/** The stages of one Node.js line's run: those whose outcome can depend on the version. */
export const NODE_LINE_STAGES = STAGES.filter(({ nodeLine }) => nodeLine);

async function main() {
  const nodeLine = process.argv.includes('--node-line');
  const stages = nodeLine ? NODE_LINE_STAGES : STAGES;
  const name = nodeLine ? 'npm run test:node-line' : 'npm test';
  const started = performance.now();
  const results = [];
  for (const [index, stage] of stages.entries()) {
    if (stages[index + 1]?.alongside === stage.script) continue;
    const partner = stage.alongside && stages.find(({ script }) => script === stage.alongside);
    const ended = await Promise.all([partner && runStage(partner, results), runStage(stage, results)]);
    results.push(...ended.filter(Boolean));
  }
  const width = Math.max(...stages.map(({ script }) => script.length));
  console.log(`\n${name}, stage by stage:`);
  for (const { script, status, note, ms } of results) {
    const time = status === 'not run' ? '' : ` ${duration(ms).padStart(12)}`;
    console.log(`  ${script.padEnd(width)}  ${status.padEnd(7)}${time}${note ? `  (${note})` : ''}`);
  }
  const failed = results.filter(({ status }) => status !== 'passed');
  console.log(
    failed.length === 0
      ? `${name}: every stage passed in ${duration(performance.now() - started)}`
      : `${name}: ${failed.length} of ${results.length} stages did not pass, in ${duration(performance.now() - started)}`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
