// Every script in package.json runs in CI: most as a step of `npm test` itself, the rest here as short
// smoke runs, so none can rot unseen (`npm run bench` once did). Those that build first build only a stale
// dist/ (scripts/build.mjs --if-stale), so none rewrites the one that servers beside them read. This file is
// in the fault suite for time: its smoke runs are whole vitest runs and processes of their own, mostly
// waited on, which npm test's fault stage overlaps with the passes beside it.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACTS } from '../../scripts/contracts.mjs';
import { STAGES } from '../../scripts/test-all.mjs';
import { freePort } from '../support/postgresCluster.js';
import { SIZES } from '../support/sizes.js';

const execFileAsync = promisify(execFile);

const root = fileURLToPath(new URL('../..', import.meta.url));
const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const folder = mkdtempSync(join(tmpdir(), 'store-orders-scripts-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Where each script that `npm test` does not run is run instead. */
const RUN_ELSEWHERE: Record<string, string> = {
  test: 'CI itself (.ci/run): scripts/test-all.mjs runs the stages',
  'test:node-line': "CI itself (.ci/run), on each Node.js line but the machine's: the stages of npm test that can depend on the line",
  prepack: 'test/package/pack.test.ts (npm pack)',
  prestart: 'this file (npm start)',
  start: 'this file',
  generate: 'this file',
  fuzz: 'this file',
  chaos: 'this file',
  bench: 'test/scripts/bench.test.ts (BENCH_SMOKE=1 node bench/run.mjs, on the suite build)',
  'pack:client': 'this file; test/package/clientPackage.test.ts installs and uses what its script packs',
};

/** The scripts a script runs, read from its text and theirs. */
function stepsOf(script: string): string[] {
  const steps = [...(scripts[script] ?? '').matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] as string);
  return steps.flatMap((step) => [step, ...stepsOf(step)]);
}

/** The scripts `npm test` runs: its runner's stages, and what each of them runs. */
const testSteps = STAGES.flatMap(({ script }) => [script, ...stepsOf(script)]);

interface Run {
  code: number | null;
  output: string;
}

/** `npm run <script>` with `env`, as its own process group so that a stop reaches the server it starts. */
function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; run: Promise<Run> } {
  const child = spawn('npm', ['run', script, '--', ...args], {
    cwd: root,
    // The inner vitest runs must not take this run's suite or report.
    env: { ...process.env, VITEST_SUITE: '', CONTRACT_PROXY: '', NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const run = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, output })));
  return { child, run };
}

const smoke = (script: string, args: string[], env: NodeJS.ProcessEnv = {}) => npmRun(script, args, env).run;

describe('package.json scripts', () => {
  it('each runs in CI: as a step of npm test, or in a named place', () => {
    const unaccounted = Object.keys(scripts).filter(
      (name) => !testSteps.includes(name) && !(name in RUN_ELSEWHERE),
    );
    expect(unaccounted).toEqual([]);
    const gone = Object.keys(RUN_ELSEWHERE).filter((name) => !(name in scripts));
    expect(gone).toEqual([]);
  });

  /** `npm start` with `env` until it listens; then the checks, then a stop. Returns what it printed. */
  async function npmStart(env: NodeJS.ProcessEnv, check: (baseUrl: string) => Promise<void>): Promise<string> {
    const { child, run } = npmRun('start', [], { PORT: '0', LOG_LEVEL: 'info', ...env });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += String(chunk);
    });
    // A hang guard, within the suite's test time-out: npm start may build first, on a busy machine.
    const deadline = Date.now() + 150_000;
    let baseUrl: string | undefined;
    while (!baseUrl && Date.now() < deadline) {
      baseUrl = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    try {
      expect(baseUrl, output).toBeDefined();
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/v1/store/orders`)).status).toBe(401);
      await check(baseUrl as string);
    } finally {
      process.kill(-(child.pid as number), 'SIGTERM');
    }
    await run;
    return output;
  }

  it('npm start builds, creates the database and serves the API on SQLite', async () => {
    await npmStart({ DATABASE_URL: join(folder, 'start', 'store.db') }, () => Promise.resolve());
  });

  it("npm start serves the API on PostgreSQL, with the README's two lines, never printing the password", async () => {
    // A folder of its own: the script gives it to the `postgres` user, who cannot enter this file's folder.
    const cluster = mkdtempSync(join(tmpdir(), 'store-orders-start-postgres-'));
    const port = await freePort();
    const started = spawnSync(join(root, 'scripts/throwaway-postgres.sh'), ['start', cluster, port], { encoding: 'utf8' });
    expect(started.status, started.stderr).toBe(0);
    try {
      // The throwaway cluster trusts local connections: the password is there to be hidden, not checked.
      const url = started.stdout.trim().replace('postgres@', 'postgres:not-to-be-shown@');
      const output = await npmStart({ DATABASE_URL: url }, async (baseUrl) => {
        // Not spawnSync: a client whose event loop is blocked for longer than the server's keep-alive timeout
        // then sends its next request on a connection the server has closed meanwhile.
        const cli = (...args: string[]) => execFileAsync('node', ['dist/cli/main.js', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: url } });
        await cli('accounts', 'create', 'acme');
        const key = (await cli('keys', 'create', '--account', 'acme')).stdout.trim();
        const list = await fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });
        expect(list.status).toBe(200);
        expect(await list.json()).toEqual([]);
      });
      expect(output).toContain(`postgres://postgres:***@127.0.0.1:${port}/postgres`);
      expect(output).not.toContain('not-to-be-shown');
    } finally {
      spawnSync(join(root, 'scripts/throwaway-postgres.sh'), ['stop', cluster]);
      rmSync(cluster, { recursive: true, force: true });
    }
  });

  it('npm run pack:client builds, then prints the client tarball\'s path alone on stdout', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const child = spawn('npm', ['run', '--silent', 'pack:client'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const tarball = join(root, 'dist', `store-orders-client-${version}.tgz`);
    expect(stdout).toBe(`${tarball}\n`);
    expect(existsSync(tarball)).toBe(true);
  });

  it('npm run generate writes what is committed: the types, the OpenAPI 3.1 renditions and their types', async () => {
    const files = CONTRACTS.flatMap(({ types, rendition, renditionTypes }) => [types, rendition, renditionTypes]);
    const read = () => files.map((file) => readFileSync(join(root, file), 'utf8'));
    const committed = read();
    const { code, output } = await smoke('generate', []);
    expect(code, output).toBe(0);
    expect(read()).toEqual(committed);
  });

  it('npm run fuzz runs the generated and stateful requests (a few runs here)', async () => {
    const { code, output } = await smoke('fuzz', [], {
      FUZZ_RUNS: '20',
      STATEFUL_RUNS: '5',
      VITEST_REPORT: 'smoke-fuzz',
    });
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tests\s+\d+ passed/);
  });

  it('npm run chaos runs the fault suite and every sized test, at full size (one short test run here)', async () => {
    const files = ['test/chaos/storage.test.ts', 'test/chaos/crash.test.ts', 'test/scale/delivery.test.ts'];
    // Sizes given to this run must not reach that one.
    const unset = Object.fromEntries(Object.keys(SIZES).map((name) => [name, '']));
    const { code, output } = await smoke('chaos', [...files, '-t', 'missing'], { ...unset, VITEST_REPORT: 'smoke-chaos' });
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tests\s+1 passed/);
    // The others are left out by name, yet their titles, which name their sizes, are in the run's report.
    const report = JSON.parse(readFileSync(join(root, 'test-artifacts', 'smoke-chaos.json'), 'utf8')) as {
      testResults: { assertionResults: { title: string }[] }[];
    };
    const titles = report.testResults.flatMap(({ assertionResults }) => assertionResults.map(({ title }) => title));
    expect(titles).toContainEqual(expect.stringContaining(`in ${SIZES.CRASH_ROUNDS.chaos} rounds`));
    expect(titles).toContainEqual(expect.stringContaining(`delivers ${SIZES.DELIVERY_MESSAGES.chaos} messages`));
  });
});
