// Three servers on one PostgreSQL under mixed load (long v1 lists, v2 pages, cancels, messages with and
// without Idempotency-Keys) while PostgreSQL is stopped and started again, fast and immediate in turn, for
// POSTGRES_SOAK_SECONDS (test/support/sizes.ts) and at least once each way. Every answer is a success, a
// 404 or a 503: never another 5xx; every server lives to the end; every acknowledged write is in the
// database. The servers' logs are kept in test-artifacts/ when it fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../support/postgresCluster.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { size } from '../support/sizes.js';
import { storeBackend } from '../support/storeBackends.js';

const SECONDS = size('POSTGRES_SOAK_SECONDS');
const RESTART_EVERY_MS = 5_000;
/** Above the default 10,000 orders from which the v1 list is streamed from PostgreSQL by COPY. */
const ORDERS = 12_000;
const CLIENTS = 12;

describe.skipIf(!storeBackend('postgres').available)(`${SECONDS} s of PostgreSQL restarts under three servers`, () => {
  let cluster: Cluster;
  let key: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    const env = { DATABASE_URL: cluster.url };
    await runCli(['init'], env);
    key = (await runCli(['keys', 'create', '--account', 'acme'], env)).stdout.trim();
    const filler = new pg.Client({ connectionString: cluster.url });
    await filler.connect();
    await filler.query(
      `INSERT INTO orders (pet_id, quantity, complete, status, created_at, updated_at)
       SELECT n, 1, false, 'pending', $2, $2 FROM generate_series(1, $1::integer) n`,
      [ORDERS, new Date().toISOString()],
    );
    await filler.end();
    servers.push(
      ...(await Promise.all([0, 1, 2].map(() => spawnServer({ ...env, LOG_LEVEL: 'warn' }, { init: false })))),
    );
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.finished));
    await cluster.remove();
  });

  it('answers nothing but successes, 404s and 503s, loses no server and no acknowledged write', async () => {
    const unexpected: string[] = [];
    const cancelled: number[] = [];
    const queued: string[] = [];
    let requests = 0;
    let stopped = false;
    const client = async (index: number) => {
      for (let n = 0; !stopped; n++) {
        const server = servers[(index + n) % servers.length] as ServerProcess;
        const kind = (index + n) % 5;
        const orderId = 1 + ((index * 7919 + n * 104_729) % ORDERS);
        const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
        if (kind === 4) headers['Idempotency-Key'] = `client-${index}-${n}`;
        const [method, path] = [
          ['GET', '/v1/store/orders'],
          ['DELETE', `/v1/store/orders/${orderId}`],
          ['POST', '/v1/messages'],
          ['GET', '/v2/store/orders?limit=20&status=pending'],
          ['POST', '/v1/messages'],
        ][kind] as [string, string];
        let status: number;
        let body: string;
        try {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method,
            headers,
            ...(method === 'POST' && { body: JSON.stringify({ message: `client ${index} #${n}` }) }),
          });
          status = response.status;
          body = await response.text();
        } catch {
          // A long list cut off mid-answer when PostgreSQL went away: the client sees a broken body.
          continue;
        }
        requests++;
        if (status >= 500 && status !== 503) unexpected.push(`${method} ${path}: ${status} ${body}`);
        if (status === 204) cancelled.push(orderId);
        if (status === 202) queued.push((JSON.parse(body) as { id: string }).id);
        if (status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
    const started = Date.now();
    // At least a fast stop and an immediate one, however short the soak.
    for (let round = 0; round < 2 || Date.now() - started < SECONDS * 1000; round++) {
      await new Promise((resolve) => setTimeout(resolve, RESTART_EVERY_MS));
      await cluster.stop(round % 2 === 0 ? 'fast' : 'immediate');
      await cluster.start();
    }
    stopped = true;
    await Promise.all(clients);

    const exited = servers.filter((server) => server.child.exitCode !== null || server.child.signalCode !== null);
    const store = new pg.Client({ connectionString: cluster.url });
    await store.connect();
    const { rows: orders } = await store.query<{ id: string }>(`SELECT id FROM orders WHERE status = 'cancelled'`);
    const { rows: messages } = await store.query<{ id: string }>(`SELECT id FROM messages`);
    await store.end();
    const stored = { orders: new Set(orders.map(({ id }) => Number(id))), messages: new Set(messages.map(({ id }) => id)) };
    const lost = [
      ...cancelled.filter((id) => !stored.orders.has(id)).map((id) => `order ${id}`),
      ...queued.filter((id) => !stored.messages.has(id)),
    ];
    const findings = { unexpected, exited: exited.length, lost };
    if (unexpected.length + exited.length + lost.length > 0) keepLogs(servers);
    expect(findings).toEqual({ unexpected: [], exited: 0, lost: [] });
    expect(cancelled.length + queued.length).toBeGreaterThan(0);
    console.log(
      `${SECONDS} s of restarts: ${requests} answers, ${cancelled.length} cancels and ${queued.length} messages acknowledged, all stored`,
    );
  }, (SECONDS + 180) * 1000);
});

function keepLogs(servers: ServerProcess[]): void {
  const folder = new URL('../../test-artifacts/postgres-restart-soak/', import.meta.url);
  mkdirSync(folder, { recursive: true });
  servers.forEach((server, index) => {
    writeFileSync(new URL(`server-${index}.log`, folder), server.output.stdout + server.output.stderr);
  });
}
