// npm test: every check, in steps: a step's stages start together, and the next step starts once they all
// ended. A stage that fails does not stop the others, so one run reports every failure; the run exits 1 if
// any stage failed. Only the test stages wait on the build: without dist/ their global set-up would only run
// the failed build again, so they are reported as not run.
// At the end, one line per stage: its result and how long it took.
// `--node-line` (npm run test:node-line, which CI runs on each Node.js line but the machine's) runs only the
// stages whose outcome can depend on the Node.js version: the build and the tests, not the checks of files.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The stages in order: the npm script each runs, the stage it cannot run without (`after`), whether it
 * starts with the stage before it (`beside`: their output is mixed), and (`nodeLine`) whether its outcome can
 * depend on the Node.js version, which puts it in `--node-line`'s run.
 *
 * The checks of files are independent and single-threaded for the most part: side by side, they share the
 * two cores. The fault suite runs two files at a time and mostly waits (on restarts, kill rounds, readers
 * that never read: a clean CI run left 55% of the cores idle while it ran alone); the pass through Prism
 * waits on the proxy, the PostgreSQL run on PostgreSQL and the contract tools on their own processes. Side by
 * side, these four share the cores that the suite keeps busy by itself. (The soak measures the server's
 * capacity under whatever else runs, and loads it at 70% of that.)
 *
 * The lints, the contract's checks and tsc read files, the same on every line; the pass through Prism checks
 * the contract on the wire, which the suite already validates every answer against on each line; the
 * PostgreSQL run, the contract tools and the fault suite are the machine line's, for time (the fault suite's
 * signals and restarts are the suite's too, at smaller sizes: test/support/sizes.ts).
 */
export const STAGES = [
  { script: 'lint' },
  { script: 'check:generated', beside: true },
  { script: 'check:breaking', beside: true },
  { script: 'typecheck', beside: true },
  { script: 'build', beside: true, nodeLine: true },
  { script: 'test:only', after: 'build', nodeLine: true },
  { script: 'test:faults', after: 'build' },
  { script: 'test:prism', after: 'build', beside: true },
  { script: 'test:postgres', after: 'build', beside: true },
  { script: 'test:contract-tools', after: 'build', beside: true },
];

/** 42 s, or 8 min 05 s. */
function duration(ms) {
  const total = Math.round(ms / 1000);
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`;
}

/** Resolves with the stage's result once it ended; at once when it cannot run. */
function runStage({ script, after }, results, env) {
  const needed = after && results.find((result) => result.script === after);
  if (needed && needed.status !== 'passed') {
    const note = `needs ${after}, which ${needed.status === 'failed' ? 'failed' : 'did not run'}`;
    return Promise.resolve({ script, status: 'not run', note, ms: 0 });
  }
  console.log(`\n> npm run ${script}\n`);
  const started = performance.now();
  return new Promise((resolve) => {
    const run = spawn('npm', ['run', script], { stdio: 'inherit', env });
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

/**
 * `stages` in steps: each stage with those `beside` it that follow.
 * @template {{ beside?: boolean }} Stage
 * @param {readonly Stage[]} stages
 * @returns {Stage[][]}
 */
export function stepsOf(stages) {
  /** @type {Stage[][]} */
  const steps = [];
  for (const stage of stages) {
    if (stage.beside && steps.length > 0) steps.at(-1).push(stage);
    else steps.push([stage]);
  }
  return steps;
}

async function main() {
  const nodeLine = process.argv.includes('--node-line');
  const stages = nodeLine ? NODE_LINE_STAGES : STAGES;
  const name = nodeLine ? 'npm run test:node-line' : 'npm test';
  const started = performance.now();
  const results = [];
  // A line's suite leaves out what cannot differ between lines (vitest.config.ts, sameOnEveryLine); npm
  // test's never does, whatever its own environment says.
  const env = { ...process.env };
  delete env.NODE_LINE_RUN;
  if (nodeLine) env.NODE_LINE_RUN = '1';
  for (const step of stepsOf(stages)) {
    results.push(...(await Promise.all(step.map((stage) => runStage(stage, results, env)))));
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
