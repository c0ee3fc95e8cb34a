// The group commit on a real PostgreSQL (store/postgres/groupCommit.ts, migration 12): the sends and the
// cancels made in one turn of the event loop go in one statement each. Rows written by one transaction
// share its id (xmin), which tells how many statements wrote them.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminStore, UNAUTHORIZED } from '../../src/store/store.js';
import { newCaller } from '../support/caller.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';
import { message } from '../support/storeSuite.js';

let database: ScratchDatabase<'postgres'> | undefined;
let store: AdminStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  await database?.drop();
  database = undefined;
});

/** A store on a new database; a caller of acme with an active key, and one whose key is revoked. */
async function withCallers() {
  database = await scratchDatabase('postgres');
  store = await database.open();
  const active = await newCaller(store, 'acme');
  const revoked = await newCaller(store, 'acme');
  expect(await store.keys.revokeKeyById(revoked.keyId)).toBe('revoked');
  return { database, store, active, revoked };
}

/** The ids `sql` reads (id, then xmin), grouped by the transaction that wrote them, each group in order. */
async function byTransaction(sql: string): Promise<string[][]> {
  const rows = await (database as ScratchDatabase<'postgres'>).rows<{ id: string; transaction: string }>(sql);
  const groups = new Map<string, string[]>();
  for (const { id, transaction } of rows) groups.set(transaction, [...(groups.get(transaction) ?? []), String(id)]);
  return [...groups.values()];
}

/** More than one statement carries (100): the rest go in a second. */
const SENDS = 130;

describe.skipIf(!storeBackend('postgres').available)('the group commit on PostgreSQL', () => {
  it('writes the sends of one turn in one statement each 100, in their order, and refuses each whose key is not active', async () => {
    const { store, active, revoked } = await withCallers();
    const sends = Array.from({ length: SENDS }, (_, i) => ({ id: `msg_${i}`, caller: i % 3 === 2 ? revoked : active }));
    const answers = await Promise.all(sends.map(({ id, caller }) => store.messages.enqueueMessage(message(id), caller)));

    expect(answers.map((answer) => (answer === UNAUTHORIZED ? answer : answer.id))).toEqual(
      sends.map(({ id, caller }) => (caller === active ? id : UNAUTHORIZED)),
    );
    const sent = sends.filter(({ caller }) => caller === active).map(({ id }) => id);
    const statements = await byTransaction(`SELECT id, xmin::text AS transaction FROM messages ORDER BY seq`);
    const activeIn = (part: typeof sends) => part.filter(({ caller }) => caller === active).length;
    expect(statements.map((ids) => ids.length).sort()).toEqual([activeIn(sends.slice(0, 100)), activeIn(sends.slice(100))].sort());
    for (const ids of statements) expect(ids).toEqual(sent.filter((id) => ids.includes(id)));
  });

  it('makes each send of a statement that one of them failed alone: only that one fails', async () => {
    const { database, store, active } = await withCallers();
    // One message of the turn breaks a rule of the table: its statement fails, and writes none of them.
    await database.execute(`ALTER TABLE messages ADD CONSTRAINT no_poison CHECK (body <> convert_to('text of msg_poison', 'UTF8'))`);
    const sends = ['msg_a', 'msg_poison', 'msg_b'].map((id) => store.messages.enqueueMessage(message(id), active));
    const settled = await Promise.allSettled(sends);

    expect(settled.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(settled[1]).toMatchObject({ reason: { code: '23514' } });
    // Each in a transaction of its own. Made at once, in no order: requests of one turn have none between them.
    const transactions = await byTransaction(`SELECT id, xmin::text AS transaction FROM messages ORDER BY seq`);
    expect(transactions.sort()).toEqual([['msg_a'], ['msg_b']]);
  });

  it('fails every send of a statement that the database failed, and writes none of them', async () => {
    const { database, store, active } = await withCallers();
    // Held past the statement's bound on lock waits (5 s without a budget): the failure is the database's.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE messages IN ACCESS EXCLUSIVE MODE');
    const sends = ['msg_a', 'msg_b', 'msg_c'].map((id) => store.messages.enqueueMessage(message(id), active));
    const settled = await Promise.allSettled(sends);
    await holder.query('COMMIT');
    await holder.end();

    expect(settled.map((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).name)).toEqual(
      sends.map(() => 'StoreUnavailableError'),
    );
    expect(await database.rows(`SELECT id FROM messages`)).toEqual([]);
  });

  it('makes the cancels of one turn in one statement, answering each as alone, and waits for no order another transaction holds', async () => {
    const { database, store, active, revoked } = await withCallers();
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push((await store.orders.addOrder({ petId: 1, quantity: 1, complete: false })).id);
    const [shipped, held, twice, ...pending] = ids as [number, number, number, ...number[]];
    expect(await store.orders.shipOrder(shipped)).toBe('shipped');
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM orders WHERE id = $1 FOR UPDATE', [held]);

    const cancel = (orderId: number, caller = active) => store.orders.cancelOrder(orderId, caller);
    const heldCancel = cancel(held);
    const others = Promise.all([
      ...pending.map((orderId) => cancel(orderId)),
      cancel(shipped),
      cancel(twice),
      cancel(twice),
      cancel(999_999),
      cancel(pending[0] as number, revoked),
    ]);
    // Answered while the order is still held: its cancel waits alone, and no other waits with it.
    expect(await others).toEqual([...pending.map(() => 'cancelled'), 'shipped', 'cancelled', 'missing', 'missing', UNAUTHORIZED]);
    await holder.query('COMMIT');
    await holder.end();
    expect(await heldCancel).toBe('cancelled');

    const statements = await byTransaction(
      `SELECT id, xmin::text AS transaction FROM orders WHERE status = 'cancelled' ORDER BY id`,
    );
    expect(statements.sort((a, b) => b.length - a.length)).toEqual([[...pending, twice].sort((a, b) => a - b).map(String), [String(held)]]);
  });
});
