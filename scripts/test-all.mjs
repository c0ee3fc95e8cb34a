// npm test: every check, one stage after another, but for the PostgreSQL run, which goes beside the pass
// through Prism. A stage that fails does not stop the others, so one run reports every failure; the run
// exits 1 if any stage failed. Only the test stages wait on the build: without dist/ their global set-up
// would only run the failed build again, so they are reported as not run.
// At the end, one line per stage: its result and how long it took.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The stages in order: the npm script each runs, the stage it cannot run without, and (`alongside`) the
 * stage before it that it runs beside rather than after. The pass through Prism mostly waits on the proxy,
 * and the PostgreSQL run on PostgreSQL: side by side they share the cores the fault suite, which measures
 * the server's capacity, keeps to itself.
 */
export const STAGES = [
  { script: 'lint' },
  { script: 'check:generated' },
  { script: 'check:breaking' },
  { script: 'typecheck' },
  { script: 'build' },
  { script: 'test:only', after: 'build' },
  { script: 'test:faults', after: 'build' },
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

async function main() {
  const started = performance.now();
  const results = [];
  for (const [index, stage] of STAGES.entries()) {
    if (STAGES[index + 1]?.alongside === stage.script) continue;
    const partner = stage.alongside && STAGES.find(({ script }) => script === stage.alongside);
    const ended = await Promise.all([partner && runStage(partner, results), runStage(stage, results)]);
    results.push(...ended.filter(Boolean));
  }
  const width = Math.max(...STAGES.map(({ script }) => script.length));
  console.log('\nnpm test, stage by stage:');
  for (const { script, status, note, ms } of results) {
    const time = status === 'not run' ? '' : ` ${duration(ms).padStart(12)}`;
    console.log(`  ${script.padEnd(width)}  ${status.padEnd(7)}${time}${note ? `  (${note})` : ''}`);
  }
  const failed = results.filter(({ status }) => status !== 'passed');
  console.log(
    failed.length === 0
      ? `npm test: every stage passed in ${duration(performance.now() - started)}`
      : `npm test: ${failed.length} of ${results.length} stages did not pass, in ${duration(performance.now() - started)}`,
  );
  process.exit(failed.length === 0 ? 0 : 1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
