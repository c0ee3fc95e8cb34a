// `npm test` (scripts/test-all.mjs) runs every stage even after one fails, says how each ended, and exits 1
// if any did not pass. The stages run here are a stand-in `npm` that fails the ones it is told to.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_LINE_STAGES, STAGES, stepsOf } from '../../scripts/test-all.mjs';
import { sameOnEveryLine } from '../../vitest.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'store-orders-test-all-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// `npm run <stage>`: notes the stage, then fails if FAIL_STAGES names it.
const fakeNpm = join(folder, 'npm');
writeFileSync(
  fakeNpm,
  `#!/bin/sh
echo "$2" >> "$STAGES_RUN"
echo "$2 NODE_LINE_RUN=\${NODE_LINE_RUN:-}" >> "$STAGES_RUN.env"
case " $FAIL_STAGES " in *" $2 "*) exit 3 ;; esac
exit 0
`,
);
chmodSync(fakeNpm, 0o755);

function runAll(failing: string[], args: string[] = []): { code: number | null; stdout: string; ran: string[]; env: string[] } {
  const log = join(folder, `ran-${[...args, ...failing].join('-') || 'none'}`);
  appendFileSync(log, '');
  const run = spawnSync(process.execPath, ['scripts/test-all.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${folder}:${process.env.PATH}`, STAGES_RUN: log, FAIL_STAGES: failing.join(' ') },
  });
  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  return { code: run.status, stdout: run.stdout, ran: lines(log), env: lines(`${log}.env`) };
}

const scripts = STAGES.map(({ script }) => script);
/** The step a stage runs in: the stages of one step start together, and any of them may start first. */
const stepOf = (script: string) => stepsOf(STAGES).findIndex((step) => step.some((stage) => stage.script === script));
/** Every stage ran once, in order but for those of one step. */
function expectInOrder(ran: string[]): void {
  expect(ran.toSorted()).toEqual(scripts.toSorted());
  expect(ran.map(stepOf)).toEqual(ran.map(stepOf).toSorted((a, b) => a - b));
}
const summaryLine = (stdout: string, script: string) =>
  stdout.split('\n').find((line) => new RegExp(`^  ${script} +`).test(line));

describe('npm test', () => {
  it('runs every stage in order, the checks of files side by side, the fault suite, the pass through Prism, the PostgreSQL run and the contract tools side by side, and exits 0 when all pass, with one line for each', () => {
    const { code, stdout, ran } = runAll([]);
    expectInOrder(ran);
    expect(stepsOf(STAGES).map((step) => step.map(({ script }) => script))).toEqual([
      ['lint', 'check:generated', 'check:breaking', 'typecheck', 'build'],
      ['test:only'],
      ['test:faults', 'test:prism', 'test:postgres', 'test:contract-tools'],
    ]);
    expect(code).toBe(0);
    for (const script of scripts) expect(summaryLine(stdout, script)).toMatch(/ passed +\d+ s$/);
  });

  it('goes on after a stage fails, and exits 1 naming it', () => {
    const { code, stdout, ran } = runAll(['lint', 'test:only']);
    expectInOrder(ran);
    expect(code).toBe(1);
    expect(summaryLine(stdout, 'lint')).toMatch(/ failed +\d+ s {2}\(exit 3\)$/);
    expect(summaryLine(stdout, 'test:only')).toMatch(/ failed +\d+ s {2}\(exit 3\)$/);
    expect(summaryLine(stdout, 'test:faults')).toMatch(/ passed +\d+ s$/);
    expect(stdout).toContain(`npm test: 2 of ${STAGES.length} stages did not pass`);
  });

  it('runs no test stage when the build fails, and says why', () => {
    const { code, stdout, ran } = runAll(['build']);
    expect(ran.toSorted()).toEqual(['build', 'check:breaking', 'check:generated', 'lint', 'typecheck']);
    expect(code).toBe(1);
    for (const script of ['test:only', 'test:faults', 'test:prism', 'test:postgres', 'test:contract-tools']) {
      expect(summaryLine(stdout, script)).toMatch(/ not run +\(needs build, which failed\)$/);
    }
  });
});

describe('npm run test:node-line', () => {
  it('runs the build, then the suite without the files that cannot differ between lines, and none of the checks of files', () => {
    const { code, stdout, ran, env } = runAll([], ['--node-line']);
    expect(ran).toEqual(['build', 'test:only']);
    expect(env).toEqual(['build NODE_LINE_RUN=1', 'test:only NODE_LINE_RUN=1']);
    expect(runAll([]).env.filter((line) => !line.endsWith('NODE_LINE_RUN='))).toEqual([]);
    expect(NODE_LINE_STAGES.map(({ script }) => script)).toEqual(ran);
    expect(code).toBe(0);
    expect(stdout).toContain('npm run test:node-line: every stage passed');
  });

  it('exits 1 when the suite fails, and runs no test stage when the build fails', () => {
    const afterSuite = runAll(['test:only'], ['--node-line']);
    expect(afterSuite.ran).toEqual(['build', 'test:only']);
    expect(afterSuite.code).toBe(1);
    expect(afterSuite.stdout).toContain('npm run test:node-line: 1 of 2 stages did not pass');
    const afterBuild = runAll(['build'], ['--node-line']);
    expect(afterBuild.ran).toEqual(['build']);
    expect(afterBuild.code).toBe(1);
    expect(summaryLine(afterBuild.stdout, 'test:only')).toMatch(/ not run +\(needs build, which failed\)$/);
  });
});

describe('the files test:node-line leaves out (vitest.config.ts, sameOnEveryLine)', () => {
  it('each name at least one test file', () => {
    for (const entry of sameOnEveryLine) {
      const files = entry.endsWith('/**')
        ? readdirSync(join(root, entry.slice(0, -'/**'.length)), { recursive: true, encoding: 'utf8' }).filter((path) =>
            path.endsWith('.test.ts'),
          )
        : [entry].filter((path) => existsSync(join(root, path)));
      expect(files, entry).not.toEqual([]);
    }
  });
});
