// PostgreSQL's own faults, on a cluster of the test's own: a restart and a crash of the database while
// clients write, a full pool and a lock held too long, and a server killed mid-write. Every answer is a
// success or a 503 with Retry-After (never a 500), /readyz tells the truth meanwhile, the server recovers
// by itself, and no acknowledged write is lost.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { contractViolations } from '../support/contract.js';
import { TEST_DATABASE_URL } from '../support/postgres.js';
import { type Cluster, startCluster } from '../support/postgresCluster.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';

interface Answer {
  status: number;
  retryAfter: string | null;
  id?: string;
  violations: string[];
}

/** Sends messages from `clients` loops until stopped; every answer, and the ids of those acknowledged. */
function writeUntilStopped(server: ServerProcess, key: string, clients = 4) {
  let stopped = false;
  const answers: Answer[] = [];
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let i = 0; !stopped; i++) {
      const body = JSON.stringify({ message: `client ${client} message ${i}` });
      let response: Response;
      let bodyText: string;
      try {
        response = await fetch(`${server.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body,
        });
        bodyText = await response.text();
      } catch {
        // The server is gone (killed): this client stops.
        return;
      }
      // A 5xx is always a violation to the contract checker; the 503 here is the promise, so its body is
      // checked for what it must be instead.
      const violations =
        response.status === 503
          ? unavailableBodyProblems(bodyText)
          : contractViolations({ method: 'POST', path: '/v1/messages', status: response.status, headers: response.headers, bodyText });
      const answer: Answer = { status: response.status, retryAfter: response.headers.get('retry-after'), violations };
      if (response.status === 202) answer.id = (JSON.parse(bodyText) as { id: string }).id;
      answers.push(answer);
      // While the database is away, a 503 comes back at once; a short pause keeps the log readable.
      if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return answers;
    },
  };
}

function unavailableBodyProblems(bodyText: string): string[] {
  const body = JSON.parse(bodyText) as { code?: unknown; status?: unknown; message?: unknown };
  return body.code === 'service_unavailable' && body.status === 503 && typeof body.message === 'string'
    ? []
    : [`not the 503 Error body: ${bodyText}`];
}

const readiness = async (server: ServerProcess) => (await fetch(`${server.baseUrl}/readyz`)).status;

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL faults', () => {
  let cluster: Cluster;
  let server: ServerProcess | undefined;
  let key: string;

  beforeEach(async () => {
    cluster = await startCluster();
    await runCli(['accounts', 'create', 'acme'], { DATABASE_URL: cluster.url });
    key = (await runCli(['keys', 'create', '--account', 'acme'], { DATABASE_URL: cluster.url })).stdout.trim();
  });

  afterEach(async () => {
    server?.child.kill('SIGKILL');
    await server?.finished;
    server = undefined;
    await cluster.remove();
  });

  /** Every message the database holds, read by a store of its own. */
  async function storedIds(): Promise<Set<string>> {
    const store = await openStore({ kind: 'postgres', url: cluster.url });
    try {
      return new Set((await store.messages.listMessages()).map(({ id }) => id));
    } finally {
      await store.close();
    }
  }

  function expectOnlyAcknowledgedOr503(answers: Answer[]) {
    expect(answers.filter(({ status }) => status === 202).length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect([202, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.retryAfter).toMatch(/^[1-9][0-9]*$/);
      expect(answer.violations).toEqual([]);
    }
  }

  it.each(['fast', 'immediate'] as const)(
    'a %s stop and start of PostgreSQL under writes: 202 or 503, /readyz false meanwhile, back by itself, nothing acknowledged lost',
    async (mode) => {
      server = await spawnServer({ DATABASE_URL: cluster.url, LOG_LEVEL: 'warn' });
      const writers = writeUntilStopped(server, key);
      await until(() => writers.answers.length >= 50, 10_000, 'writes are answered');
      await cluster.stop(mode);
      const down = writers.answers.length;
      await until(() => writers.answers.length >= down + 20, 10_000, 'writes are answered while it is down');
      expect(await readiness(server)).toBe(503);
      await cluster.start();
      const recoveredAfterMs = await until(async () => (await readiness(server as ServerProcess)) === 200, 15_000, '/readyz is 200');
      const back = writers.answers.length;
      await until(() => writers.answers.slice(back).some(({ status }) => status === 202), 10_000, 'a write succeeds');
      const answers = await writers.stop();

      expectOnlyAcknowledgedOr503(answers);
      expect(answers.slice(down).some(({ status }) => status === 503)).toBe(true);
      const stored = await storedIds();
      const acknowledged = answers.flatMap(({ id }) => (id ? [id] : []));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(server.child.exitCode).toBeNull();
      console.log(
        `postgres ${mode} restart: ${acknowledged.length} acknowledged, all stored; ` +
          `${answers.filter(({ status }) => status === 503).length} answered 503; ready again ${recoveredAfterMs} ms after the start`,
      );
    },
    60_000,
  );

  it('a full pool and a lock held too long answer 503 with Retry-After, then serve again', async () => {
    server = await spawnServer({ DATABASE_URL: cluster.url, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '1' });
    const store = await openStore({ kind: 'postgres', url: cluster.url });
    const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
    await store.close();
    // Another client holds the order's row: the first cancel waits for it with the one connection.
    const holder = new pg.Client({ connectionString: cluster.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT * FROM orders WHERE id = $1 FOR UPDATE', [order.id]);
    const cancel = () =>
      fetch(`${server?.baseUrl}/v1/store/orders/${order.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
    const answers = await Promise.all([cancel(), cancel(), cancel()]);
    await holder.query('ROLLBACK');
    await holder.end();
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    expect((await cancel()).status).toBe(204);
  }, 30_000);

  it('a server killed mid-write loses no acknowledged write', async () => {
    server = await spawnServer({ DATABASE_URL: cluster.url, LOG_LEVEL: 'warn' });
    const writers = writeUntilStopped(server, key);
    await until(() => writers.answers.length >= 200, 10_000, 'writes are answered');
    server.child.kill('SIGKILL');
    await server.finished;
    const answers = await writers.stop();
    const stored = await storedIds();
    const acknowledged = answers.flatMap(({ id }) => (id ? [id] : []));
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  }, 30_000);
});
