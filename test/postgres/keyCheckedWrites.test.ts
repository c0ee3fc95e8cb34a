// On PostgreSQL, listOrders, cancelOrder and sendMessage are one statement each for a key the server has
// seen before: the operation's own statement checks the key (migration 8). Counted on the wire between a
// real server and its PostgreSQL. A key revoked is refused from the next request, by that statement, which
// writes nothing; and a revocation racing writes on three servers lets no write in once it has committed.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { countStatements, type StatementCounter } from '../support/pgWire.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

const ORDERS = 60;

let database: ScratchDatabase<'postgres'> | undefined;
let counter: StatementCounter | undefined;
let servers: ServerProcess[] = [];
afterEach(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await Promise.all(servers.map(({ finished }) => finished));
  servers = [];
  await counter?.close();
  counter = undefined;
  await database?.drop();
  database = undefined;
});

/** A database with ORDERS pending orders and one key of the account acme. */
async function seeded(): Promise<{ url: string; key: string }> {
  database = await scratchDatabase('postgres');
  const { url } = database;
  expect((await runCli(['init'], { DATABASE_URL: url })).code).toBe(0);
  const key = (await runCli(['keys', 'create', '--account', 'acme'], { DATABASE_URL: url })).stdout.trim();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(
    `INSERT INTO orders (pet_id, quantity, complete, status, created_at, updated_at)
     SELECT n, 1, false, 'pending', $2, $2 FROM generate_series(1, $1::integer) n`,
    [ORDERS, new Date().toISOString()],
  );
  await admin.end();
  return { url, key };
}

function caller(baseUrl: string, key: string) {
  return async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${baseUrl}/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
      ...(init.body !== undefined && { body: init.body }),
    });
    await response.arrayBuffer();
    return response.status;
  };
}

describe.skipIf(!storeBackend('postgres').available)('an operation whose statement checks the key', () => {
  it('is one statement per request once the key has been seen: listOrders, cancelOrder, sendMessage', async () => {
    const { url, key } = await seeded();
    // Every server delivers events: its claims (once a second) and sweeps are its own, not a request's.
    counter = await countStatements(url, [/webhook_endpoints/, /FROM events/, /DELETE FROM messages/]);
    // Default settings but the quotas, whose leases are statements of their own (sharedQuotas.test.ts).
    const server = await spawnServer({ DATABASE_URL: counter.url, LOG_LEVEL: 'warn' }, { init: false });
    servers.push(server);
    const call = caller(server.baseUrl, key);
    // The key's first request looks it up; a first Idempotency-Key purges the expired ones beside it.
    expect(await call('GET', '/store/orders')).toBe(200);
    expect(await call('POST', '/messages', { body: '{"message":"warm"}', headers: { 'Idempotency-Key': 'warm' } })).toBe(202);

    const perRequest = async (requests: (() => Promise<number>)[], status: number) => {
      const before = counter?.statements() ?? 0;
      for (const request of requests) expect(await request()).toBe(status);
      return ((counter?.statements() ?? 0) - before) / requests.length;
    };
    const twenty = <T>(request: (i: number) => T) => Array.from({ length: 20 }, (_, i) => () => request(i));
    expect({
      list: await perRequest(twenty(() => call('GET', '/store/orders')), 200),
      cancel: await perRequest(twenty((i) => call('DELETE', `/store/orders/${i + 1}`)), 204),
      send: await perRequest(twenty((i) => call('POST', '/messages', { body: `{"message":"m${i}"}` })), 202),
      sendOnce: await perRequest(
        twenty((i) => call('POST', '/messages', { body: '{"message":"once"}', headers: { 'Idempotency-Key': `k${i}` } })),
        202,
      ),
    }).toEqual({ list: 1, cancel: 1, send: 1, sendOnce: 1 });
  });

  it('refuses a key revoked since it was seen with 401, from its next request on, and writes nothing', async () => {
    const { url, key } = await seeded();
    const server = await spawnServer({ DATABASE_URL: url, LOG_LEVEL: 'warn' }, { init: false });
    servers.push(server);
    const call = caller(server.baseUrl, key);
    expect(await call('GET', '/store/orders')).toBe(200);
    expect(await call('DELETE', '/store/orders/1')).toBe(204);
    expect((await runCli(['keys', 'revoke', key], { DATABASE_URL: url })).code).toBe(0);

    expect(await call('DELETE', '/store/orders/2')).toBe(401);
    expect(await call('DELETE', '/store/orders/999999')).toBe(401);
    expect(await call('DELETE', '/store/orders/9007199254740993')).toBe(401);
    expect(await call('POST', '/messages', { body: '{"message":"late"}' })).toBe(401);
    expect(await call('POST', '/messages', { body: '{"message":"late"}', headers: { 'Idempotency-Key': 'late' } })).toBe(401);
    expect(await call('GET', '/store/orders')).toBe(401);
    // A refusal before the operation is 401 too: the key's lookup comes first, as the order of checks says.
    expect(await call('POST', '/messages', { body: '{"message":""}' })).toBe(401);

    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ cancelled: number; messages: number; keys: number }>(
      `SELECT (SELECT count(*)::integer FROM orders WHERE status = 'cancelled') AS cancelled,
         (SELECT count(*)::integer FROM messages) AS messages,
         (SELECT count(*)::integer FROM idempotency_keys) AS keys`,
    );
    await admin.end();
    expect(rows[0]).toEqual({ cancelled: 1, messages: 0, keys: 0 });
  });

  it('lets no write in after a revocation racing writes on three servers has committed', async () => {
    const { url, key } = await seeded();
    servers = await Promise.all([0, 1, 2].map(() => spawnServer({ DATABASE_URL: url, LOG_LEVEL: 'warn' }, { init: false })));
    const calls = servers.map(({ baseUrl }) => caller(baseUrl, key));
    for (const call of calls) expect(await call('GET', '/store/orders')).toBe(200);

    interface Sent {
      what: string;
      sentAt: number;
      status: number;
    }
    const sent: Sent[] = [];
    let revokedAt = Number.POSITIVE_INFINITY;
    let next = 0;
    // Each writer goes on until two of its requests in a row were sent after the revocation committed.
    const writer = async (w: number) => {
      for (let after = 0; after < 2; ) {
        const i = next++;
        const call = calls[i % calls.length] as ReturnType<typeof caller>;
        const what = i % 2 === 0 && i / 2 < ORDERS ? `order ${i / 2 + 1}` : `message ${w}-${i}`;
        const sentAt = performance.now();
        const status = what.startsWith('order')
          ? await call('DELETE', `/store/orders/${what.slice(6)}`)
          : await call('POST', '/messages', { body: JSON.stringify({ message: what }) });
        sent.push({ what, sentAt, status });
        if (sentAt > revokedAt) after++;
      }
    };
    const writers = Array.from({ length: 12 }, (_, w) => writer(w));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Some writes go through first.
    while (sent.filter(({ status }) => status === 202 || status === 204).length < 30) await new Promise((r) => setTimeout(r, 5));
    await admin.query(`UPDATE api_keys SET revoked_at = $1`, [new Date().toISOString()]);
    revokedAt = performance.now();
    await Promise.all(writers);

    const { rows: orders } = await admin.query<{ id: string; status: string }>(`SELECT id, status FROM orders`);
    const { rows: messages } = await admin.query<{ body: Buffer }>(`SELECT body FROM messages`);
    await admin.end();
    const written = new Set([
      ...orders.filter(({ status }) => status === 'cancelled').map(({ id }) => `order ${id}`),
      ...messages.map(({ body }) => body.toString('utf8')),
    ]);
    const late = sent.filter(({ sentAt }) => sentAt > revokedAt);
    expect(late.length).toBeGreaterThanOrEqual(24);
    expect(late.filter(({ status }) => status !== 401)).toEqual([]);
    expect(late.filter(({ what }) => written.has(what))).toEqual([]);
    // Every write acknowledged is written, and nothing refused is.
    for (const { what, status } of sent) expect({ what, written: written.has(what) }).toEqual({ what, written: status !== 401 });
  });
});
