// npm test: every check, one stage after another. A stage that fails does not stop the others, so one run
// reports every failure; the run exits 1 if any stage failed. Only the test stages wait on the build: without
// dist/ their global set-up would only run the failed build again, so they are reported as not run.
// At the end, one line per stage: its result and how long it took.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The stages in order: the npm script each runs, and the stage it cannot run without. */
export const STAGES = [
  { script: 'lint' },
  { script: 'check:generated' },
  { script: 'check:breaking' },
  { script: 'typecheck' },
  { script: 'build' },
  { script: 'test:only', after: 'build' },
  { script: 'test:prism', after: 'build' },
  { script: 'test:faults', after: 'build' },
  { script: 'test:postgres', after: 'build' },
];

/** 42 s, or 8 min 05 s. */
function duration(ms) {
  const total = Math.round(ms / 1000);
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`;
}

function runStage({ script, after }, results) {
  const needed = after && results.find((result) => result.script === after);
  if (needed && needed.status !== 'passed') {
    return { script, status: 'not run', note: `needs ${after}, which ${needed.status === 'failed' ? 'failed' : 'did not run'}`, ms: 0 };
  }
  console.log(`\n> npm run ${script}\n`);
  const started = performance.now();
  const run = spawnSync('npm', ['run', script], { stdio: 'inherit' });
  const ms = performance.now() - started;
  // Ctrl-C never gets here: it reaches this process too, which stops at once.
  const note = run.error?.message ?? (run.signal ? `killed by ${run.signal}` : run.status === 0 ? '' : `exit ${run.status}`);
  return { script, status: run.status === 0 ? 'passed' : 'failed', note, ms };
}

function main() {
  const started = performance.now();
  const results = [];
  for (const stage of STAGES) results.push(runStage(stage, results));
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

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
