import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../support/backends/postgres.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FAULT_PRELOAD = pathToFileURL(`${root}test/support/benchContenderFault.mjs`).href;
// Hang guards, not speed checks: how fast the machine is, and how busy, must never decide these tests. A
// bench that hangs is stopped (SIGTERM) after HANG_LIMIT_MS; a contender whose probe has not answered 200
// after START_HANG_GUARD_MS is taken for hung (the bench's own default, meant for a quiet machine, is 30 s).
const HANG_LIMIT_MS = 600_000;
const START_HANG_GUARD_MS = '300000';

interface BenchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `node bench/run.mjs` on the built files (the suite's global setup builds them), as `npm run bench` runs it. */
function runBench(env: NodeJS.ProcessEnv): Promise<BenchRun> {
  const child = spawn(process.execPath, ['bench/run.mjs'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: HANG_LIMIT_MS,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe('npm run bench', () => {
  // The bench runs on the machine's Node line, which CI's first run proves; CI's other lines leave this file
  // out (vitest.config.ts, sameOnEveryLine).
  it(
    'runs every scenario in its smoke mode and prints a row for each',
    async () => {
      // On the tests' PostgreSQL when there is one; else the bench starts its own, or says why it cannot.
      const run = await runBench({
        BENCH_SMOKE: '1',
        BENCH_POSTGRES_URL: TEST_DATABASE_URL ?? '',
        BENCH_START_TIMEOUT_MS: START_HANG_GUARD_MS,
      });
      expect(run.code, run.stderr).toBe(0);
      for (const row of [
        /^\| listOrders, 100 orders \| \d+ req\/s \| naive \d+, Fastify route \d+, featured route \d+, limit \d+ \| [\d.]+× Fastify route .*, [\d.]+× featured route, featured route itself [\d.]+× Fastify route \|$/m,
        /^\| listOrders, 100 orders, CPU per request \| \d+ µs \| naive \d+, Fastify route \d+, featured route \d+, limit \d+ \| (?:[\d.]+×|— \(under a tick\)) Fastify route, (?:[\d.]+×|— \(under a tick\)) featured route, featured route itself (?:[\d.]+×|— \(under a tick\)) Fastify route \|$/m,
        /^\| listOrders, 100 orders, CPU per request in user space \| \d+ µs \| naive \d+, Fastify route \d+, featured route \d+, limit \d+ \| (?:[\d.]+×|— \(under a tick\)) Fastify route, (?:[\d.]+×|— \(under a tick\)) featured route, featured route itself (?:[\d.]+×|— \(under a tick\)) Fastify route \|$/m,
        /^\| cancelOrder \| \d+ req\/s \| bare Fastify \(FULL\) \d+ \| [\d.]+× /m,
        /^\| sendMessage \(project FULL\) \| \d+ req\/s \| bare Fastify \(NORMAL\) \d+ \| [\d.]+× /m,
        /^\| cold start to first 200 \| \d+ ms \| bare Fastify \d+ ms \| [\d.]+× /m,
        /^\| listOrders, 20,000 orders \(\d+ MB\) \| \d+ ms over HTTP \| sqlite3 -json \d+ ms; peak RSS /m,
        /^\| listOrders, 100 orders, 2 workers \| \d+ req\/s \| 1 worker \d+ \| [\d.]+× 1 worker /m,
        /^\| cancelOrder, 2 workers \| \d+ req\/s \| 1 worker \d+ \| [\d.]+× 1 worker /m,
        /^\| sendMessage, 2 workers \| \d+ req\/s \| 1 worker \d+ \| [\d.]+× 1 worker /m,
        /^\| listOrders, 100 orders, quotas shared, 1 server on SQLite \| \d+ req\/s \| quotas off \d+ \| [\d.]+× quotas off /m,
        /^\| listOrders, 100 orders, quotas shared, 2 workers on SQLite \| \d+ req\/s \| quotas off \d+ \| [\d.]+× quotas off /m,
        /^\| v2 listOrders, first page of 100, 20,000 orders \| [\d.]+ req\/s \| naive OFFSET [\d.]+ \| [\d.]+× naive OFFSET \|$/m,
        /^\| v2 listOrders, page 18,000 deep \| [\d.]+ req\/s \| naive OFFSET [\d.]+ \| [\d.]+× naive OFFSET; time per page deep\/first [\d.]+× \(≤ 1\.2×\), naive OFFSET's [\d.]+× \|$/m,
        /^\| v2 listOrders, status=shipped \(1%\) \| [\d.]+ req\/s \| naive OFFSET [\d.]+ \| [\d.]+× naive OFFSET \|$/m,
        /^\| v2 walk of every page \(limit 1,000\), 20,000 orders \(\d+ MB\) \| \d+ ms \| v1 list \d+ ms; naive OFFSET walk \d+ ms \| [\d.]+× v1 list, [\d.]+× naive OFFSET walk \|$/m,
        /^\| 202 to delivery, \d+ msg\/s from 16 accounts, instant receiver \| median [\d.]+ ms \| p99 [\d.]+ ms after the first round; rounds' medians [\d.]+ ms; \d+ messages \| median ≤ 100 ms \|$/m,
        /^\| \/healthz, 200 clients that never read the long list, 20,000 orders \| median [\d.]+ ms, p99 \d+ ms, max \d+ ms \| \d+ probes; last round: \d+ lists streamed, \d+ 503s; the server's event loop held ≤ \d+ ms \| p99 < 100 ms \|$/m,
        /^\| \/healthz, 100 clients reading the long list in a loop, once connected, 20,000 orders \| median [\d.]+ ms, p99 \d+ ms, max \d+ ms \| \d+ probes; last round: \d+ lists, \d+ 503s, \d+ other; while they connected \(\d+ ms\) \d+ probes, max \d+ ms; the server's event loop held ≤ \d+ ms \| p99 < 100 ms \|$/m,
        /^\| listOrders, 100 orders, spans exported \| \d+ req\/s \| export off \d+, 10% sampled \d+ \| [\d.]+× off, 10% sampled [\d.]+× off \|$/m,
        /^\| listOrders, 100 orders, spans exported, CPU per request \| \d+ µs \| export off \d+, 10% sampled \d+ \| (?:[\d.]+×|— \(under a tick\)) off \(≤ 1\.25×\), 10% sampled (?:[\d.]+×|— \(under a tick\)) off; spans dropped \d+ \|$/m,
        /^\| sendMessage, spans exported, CPU per request \| \d+ µs \| export off \d+, 10% sampled \d+ \| /m,
      ]) {
        expect(run.stdout).toMatch(row);
      }
      const postgresRows = [
        /^\| listOrders, 100 orders, on PostgreSQL \| \d+ req\/s \| bare Fastify \+ pg \d+ \| [\d.]+× /m,
        /^\| cancelOrder on PostgreSQL \| \d+ req\/s \| bare Fastify \+ pg \d+ \| [\d.]+× /m,
        /^\| cancelOrder on PostgreSQL, CPU per request \| \d+ µs \| bare Fastify \+ pg \d+ \| (?:[\d.]+×|— \(under a tick\)) bare/m,
        /^\| cancelOrder on PostgreSQL, CPU per request in user space \| \d+ µs \| bare Fastify \+ pg \d+ \| (?:[\d.]+×|— \(under a tick\)) bare/m,
        /^\| sendMessage on PostgreSQL \| \d+ req\/s \| bare Fastify \+ pg \d+ \| [\d.]+× /m,
        /^\| sendMessage on PostgreSQL, CPU per request \| \d+ µs \| bare Fastify \+ pg \d+ \| (?:[\d.]+×|— \(under a tick\)) bare/m,
        /^\| sendMessage on PostgreSQL, CPU per request in user space \| \d+ µs \| bare Fastify \+ pg \d+ \| (?:[\d.]+×|— \(under a tick\)) bare/m,
        /^\| listOrders, 100 orders, quotas shared, 1 server on PostgreSQL \| \d+ req\/s \| quotas off \d+ \| [\d.]+× /m,
        /^\| listOrders, 100 orders, quotas shared, 2 servers on one PostgreSQL \| \d+ req\/s \| quotas off \d+ \| [\d.]+× /m,
        /^\| listOrders, 100 orders, 2 servers on one PostgreSQL \| \d+ req\/s \| 1 server \d+ \| [\d.]+× /m,
        /^\| sendMessage, 2 servers on one PostgreSQL \| \d+ req\/s \| 1 server \d+ \| [\d.]+× /m,
        /^\| listOrders on PostgreSQL, 20,000 orders \(\d+ MB\) \| \d+ ms over HTTP \| psql COPY \d+ ms; peak RSS /m,
      ];
      if (TEST_DATABASE_URL === undefined && /^\| PostgreSQL scenarios \| skipped: /m.test(run.stdout)) return;
      for (const row of postgresRows) expect(run.stdout).toMatch(row);
    },
    HANG_LIMIT_MS + 10_000,
  );

  it('exits 1 naming the scenarios when BENCH_ONLY names one that does not exist, instead of running none', async () => {
    // "lists" for "list": without the check, the bench printed its table's head and no row, and passed.
    const run = await runBench({ BENCH_ONLY: 'cold,lists', BENCH_SMOKE: '1' });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('BENCH_ONLY names no scenario "lists"; the scenarios: list,write,cold,big,workers,postgres,quota,pages,delivery,crowd,traces');
    expect(run.stdout).toBe('');
  });

  it(
    'exits 1 with the name and stderr of a contender that dies at start, instead of waiting for it',
    async () => {
      // The project refuses this setting at start, as it once refused the bench's own quota setting. The cold
      // start scenario starts the project first and alone, so its exit is the only way this run can end.
      const run = await runBench({
        BENCH_ONLY: 'cold',
        BENCH_SMOKE: '1',
        BENCH_START_TIMEOUT_MS: START_HANG_GUARD_MS,
        RATE_LIMIT_WINDOW_SECONDS: '0',
      });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('contender "project"');
      expect(run.stderr).toContain('RATE_LIMIT_WINDOW_SECONDS must be a whole number from 1 to 999999999');
      expect(run.stderr).toContain('before answering /v1/store/orders');
    },
    HANG_LIMIT_MS + 10_000,
  );

  it(
    'exits 1 with the name and stderr of a contender that dies during a load run',
    async () => {
      const run = await runBench({
        BENCH_ONLY: 'list',
        BENCH_SMOKE: '1',
        BENCH_START_TIMEOUT_MS: START_HANG_GUARD_MS,
        BENCH_FAULT: 'exit-mid-run',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${FAULT_PRELOAD}"`,
      });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('contender "project"');
      expect(run.stderr).toContain('planted fault: the project exits in the middle of a load run');
      expect(run.stderr).toContain('(it exited with status 7 during the run)');
    },
    HANG_LIMIT_MS + 10_000,
  );

  it(
    'exits 1 naming a contender that never answers its probe within BENCH_START_TIMEOUT_MS',
    async () => {
      // The start deadline applies to every contender, and a healthy one on a busy machine can take longer
      // than a short one to answer. The cold start scenario starts the project first and alone, so the
      // only contender the deadline can be reached by is the one that never answers.
      const run = await runBench({
        BENCH_ONLY: 'cold',
        BENCH_SMOKE: '1',
        BENCH_START_TIMEOUT_MS: '3000',
        BENCH_FAULT: 'never-answer',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import "${FAULT_PRELOAD}"`,
      });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('contender "project"');
      expect(run.stderr).toContain('/v1/store/orders did not answer 200 within 3000 ms');
    },
    HANG_LIMIT_MS + 10_000,
  );
});
