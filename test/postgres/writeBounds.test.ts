// An answer of 503 means nothing of the request was written. Another session holds orders' rows and
// Idempotency-Keys' rows for longer than every bound, while cancels and idempotent sends wait for them
// in two waves (the second waits behind the first, so its row lock is waited for twice); then the
// holder lets go, and every order and key whose requests were all answered 503 must be as it was.
import pg from 'pg';
import { keyDigest } from '../../src/keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

const ORDERS = 3;
const HELD_KEYS = ['held-1', 'held-2'];

interface Answer {
  target: string;
  status: number;
  body: string;
}

describe.skipIf(!storeBackend('postgres').available)('writes that wait for a lock held longer than every bound', () => {
  let database: ScratchDatabase<'postgres'>;
  let server: ServerProcess;
  let key: string;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await scratchDatabase('postgres');
    // Default settings: a pool of 10, DATABASE_QUERY_TIMEOUT_MS of 7 s.
    server = await spawnServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
    await runCli(['accounts', 'create', 'acme'], { DATABASE_URL: database.url });
    key = (await runCli(['keys', 'create', '--account', 'acme'], { DATABASE_URL: database.url })).stdout.trim();
    for (let i = 0; i < ORDERS; i++) {
      await runCli(['orders', 'add', '--pet-id', '1', '--quantity', '1'], { DATABASE_URL: database.url });
    }
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // The key is seen once before, so that the waves' writes are the operations' own statements, which
    // check the key themselves (migration 8).
    const seen = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });
    expect(seen.status).toBe(200);
  });

  afterAll(async () => {
    server.child.kill('SIGKILL');
    await server.finished;
    await admin.end();
    await database.drop();
  });

  const send = async (target: string, path: string, init: RequestInit): Promise<Answer> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers },
    });
    return { target, status: response.status, body: await response.text() };
  };
  const wave = (round: number) => [
    ...Array.from({ length: ORDERS }, (_, i) => send(`order ${i + 1}`, `/v1/store/orders/${i + 1}`, { method: 'DELETE' })),
    ...HELD_KEYS.map((heldKey) =>
      send(`key ${heldKey}`, '/v1/messages', {
        method: 'POST',
        headers: { 'Idempotency-Key': heldKey },
        body: JSON.stringify({ message: `sent in wave ${round}` }),
      }),
    ),
  ];

  it('answers 503 and writes nothing: every order and Idempotency-Key answered only 503 is unchanged', async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT id FROM orders FOR UPDATE`);
    for (const heldKey of HELD_KEYS) {
      await holder.query(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
         SELECT id, $1, '\\x00', 202, '{}', $2 FROM accounts WHERE name = 'acme'`,
        [heldKey, new Date().toISOString()],
      );
    }
    const first = wave(1);
    // The second wave comes once the first waits: each of its cancels queues behind one of the first's.
    await untilWaiting(admin, ORDERS + HELD_KEYS.length);
    const second = wave(2);
    const answers = await Promise.all([...first, ...second]);
    // Every request has its answer: the holder has held longer than any bound of the server. Only now
    // does it let go, and whatever still waits in PostgreSQL may go on.
    await holder.query('ROLLBACK');
    await holder.end();
    await untilNoneActive(admin);

    for (const { status, body } of answers) {
      // 409: the second wave's send of a key whose first request is still in flight on this server.
      expect([204, 202, 409, 503], body).toContain(status);
      if (status === 503) expect(JSON.parse(body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    const refusedOnly = (target: string) =>
      answers.filter((answer) => answer.target === target).every(({ status }) => status === 503 || status === 409);
    const { rows: orders } = await admin.query<{ id: string; status: string }>(`SELECT id, status FROM orders`);
    const written = orders.filter(({ id, status }) => refusedOnly(`order ${id}`) && status !== 'pending');
    const { rows: keys } = await admin.query<{ key: string }>(`SELECT key FROM idempotency_keys`);
    const claimed = keys.filter(({ key: heldKey }) => refusedOnly(`key ${heldKey}`));
    const { rows: messages } = await admin.query<{ count: number }>(`SELECT count(*)::integer AS count FROM messages`);
    const acknowledgedSends = answers.filter(({ status }) => status === 202).length;
    expect({ written, claimed, messages: messages[0]?.count }).toEqual({
      written: [],
      claimed: [],
      messages: acknowledgedSends,
    });
  });

  it('a write that outlasts its budget in PostgreSQL raises query_canceled and writes nothing, whatever it got past', async () => {
    // A budget of 0 ms is spent before the write ends: only the last check can refuse it. The functions of
    // migration 5 stay for servers of earlier releases; those of migrations 8 and 12 and the procedure of
    // migration 11 are this release's (enqueue_message_for_key stays for servers of the last one).
    const digest = keyDigest(key);
    // One at a time: pg 9 will refuse a query sent while the client is running another.
    const writes = [
      () => admin.query(`SELECT move_order(1, 'pending', 'shipped', 'now', 0)`),
      () => admin.query(`SELECT enqueue_message(1, 'msg_late', '\\x6869', 'now', 0)`),
      () => admin.query(`SELECT move_order_for_key($1, 1, 'pending', 'shipped', 'now', 0)`, [digest]),
      () => admin.query(`SELECT enqueue_message_for_key($1, 'msg_late', '\\x6869', 'now', 0)`, [digest]),
      () => admin.query(`CALL queue_message_checked($1, 'msg_late', '\\x6869', 'now', 0)`, [digest]),
      () => admin.query(
        `SELECT queue_messages_checked(ARRAY[$1::bytea], '{msg_late}', ARRAY['\\x6869'::bytea], '{now}', 0)`,
        [digest],
      ),
      () => admin.query(`SELECT move_orders_for_keys(ARRAY[$1::bytea], '{1}', '{pending}', '{shipped}', 'now', 0)`, [digest]),
      () => admin.query(
        `SELECT * FROM enqueue_message_once_for_key($1, 'late', '\\x00', '', 'msg_late', '\\x6869', 'now', '{}', 0)`,
        [digest],
      ),
    ];
    for (const write of writes) await expect(write()).rejects.toMatchObject({ code: '57014' });
    const { rows } = await admin.query<{ shipped: number; late: number; keys: number }>(
      `SELECT (SELECT count(*)::integer FROM orders WHERE status = 'shipped') AS shipped,
         (SELECT count(*)::integer FROM messages WHERE id = 'msg_late') AS late,
         (SELECT count(*)::integer FROM idempotency_keys WHERE key = 'late') AS keys`,
    );
    expect(rows[0]).toEqual({ shipped: 0, late: 0, keys: 0 });
  });
});

/** Until `count` statements of other sessions wait for a lock. */
async function untilWaiting(admin: pg.Client, count: number): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ waiting: number }>(
      `SELECT count(*)::integer AS waiting FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if ((rows[0]?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Until no other session of this database runs a statement: what was left waiting has ended. */
async function untilNoneActive(admin: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ active: number }>(
      `SELECT count(*)::integer AS active FROM pg_stat_activity
       WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    if (rows[0]?.active === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
