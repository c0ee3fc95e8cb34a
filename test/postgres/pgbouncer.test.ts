// Through PgBouncer in transaction mode, where each transaction may run on another server connection:
// two servers, with more clients than PgBouncer has connections to PostgreSQL, keep every promise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { AdminStore } from '../../src/store/store.js';
import { type Bouncer, type Cluster, startCluster, startPgBouncer } from '../support/postgresCluster.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { storeBackend } from '../support/storeBackends.js';

describe.skipIf(!storeBackend('postgres').available)('through PgBouncer in transaction mode', () => {
  let cluster: Cluster;
  let bouncer: Bouncer;
  let servers: ServerProcess[];
  let store: AdminStore;
  let key: string;

  const call = (i: number, path: string, init: RequestInit = {}) =>
    fetch(`${servers[i % servers.length]?.baseUrl}/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
    });

  beforeAll(async () => {
    cluster = await startCluster();
    bouncer = await startPgBouncer(cluster, 2);
    const env = { DATABASE_URL: bouncer.url };
    // The schema is made through PgBouncer too, by the CLI, as an operator would.
    expect((await runCli(['init'], env)).code).toBe(0);
    await runCli(['accounts', 'create', 'acme'], env);
    key = (await runCli(['keys', 'create', '--account', 'acme'], env)).stdout.trim();
    servers = await Promise.all([0, 1].map(() => spawnServer({ ...env, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '10' })));
    store = await openStore({ kind: 'postgres', url: bouncer.url });
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await store.close();
    await bouncer.stop();
    await cluster.remove();
  });

  it('one of 40 cancels of one order wins, one of 40 sends with one Idempotency-Key is stored, and 40 sends without one are all stored', async () => {
    const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
    const cancels = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i, `/store/orders/${order.id}`, { method: 'DELETE' })),
    );
    expect(cancels.filter(({ status }) => status === 204)).toHaveLength(1);
    expect(cancels.filter(({ status }) => status === 404)).toHaveLength(39);

    const sends = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(i, '/messages', {
          method: 'POST',
          headers: { 'Idempotency-Key': 'through-the-bouncer' },
          body: JSON.stringify({ message: 'once' }),
        }),
      ),
    );
    for (const { status } of sends) expect([202, 409]).toContain(status);
    expect(await store.messages.listMessages()).toHaveLength(1);

    const plain = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(i, '/messages', { method: 'POST', body: JSON.stringify({ message: `plain ${i}` }) }),
      ),
    );
    expect(plain.map(({ status }) => status)).toEqual(Array.from({ length: 40 }, () => 202));
    expect(await store.messages.listMessages()).toHaveLength(41);
  });

  it('streams a long list with COPY, and sees a change made on the other server at once', async () => {
    await store.orders.importOrders(Array.from({ length: 12_000 }, () => ({ petId: 2, quantity: 1 })));
    const before = await call(0, '/store/orders');
    const orders = (await before.json()) as { id: number }[];
    expect(orders.length).toBeGreaterThan(10_000);
    expect((await call(1, '/store/orders', { headers: { 'If-None-Match': before.headers.get('etag') ?? '' } })).status).toBe(304);
    expect((await call(1, `/store/orders/${orders[0]?.id}`, { method: 'DELETE' })).status).toBe(204);
    const after = await call(0, '/store/orders');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(((await after.json()) as unknown[]).length).toBe(orders.length - 1);
  });

  it('refuses a key revoked through the CLI on the next request to either server', async () => {
    expect([(await call(0, '/store/orders')).status, (await call(1, '/store/orders')).status]).toEqual([200, 200]);
    expect((await runCli(['keys', 'revoke', key], { DATABASE_URL: bouncer.url })).code).toBe(0);
    // Each server has seen the key, so the next send is refused by the statement that would write it.
    const send = (i: number) => call(i, '/messages', { method: 'POST', body: JSON.stringify({ message: 'late' }) });
    expect([(await send(0)).status, (await send(1)).status]).toEqual([401, 401]);
    expect((await store.messages.listMessages()).filter(({ message }) => message === 'late')).toEqual([]);
    expect([(await call(0, '/store/orders')).status, (await call(1, '/store/orders')).status]).toEqual([401, 401]);
  });
});
