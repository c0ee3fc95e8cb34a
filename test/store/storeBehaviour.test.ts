// One store behaviour suite, run on SQLite and on PostgreSQL: every method and outcome of store.ts, the
// promises that hold across the processes sharing one database (each store opened on it stands for one),
// and a long list streamed without reading ahead of its reader.
import type { Readable } from 'node:stream';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, keyDigest } from '../../src/keys.js';
import Database from 'better-sqlite3';
import { EXAMINED_PER_PAGE, orderPageSql } from '../../src/store/orderPages.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { pageDialect as postgresPageDialect } from '../../src/store/postgres/orders.js';
import { pageDialect as sqlitePageDialect } from '../../src/store/sqlite/orders.js';
import type { AdminStore, NewMessage, OrderFilter, OrderPageQuery } from '../../src/store/store.js';
import { STORE_BACKENDS, type ScratchStore } from '../support/storeBackends.js';

/** A change made by another process is seen from the next turn of the event loop (SQLite's rule). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const message = (accountId: number, id: string, createdAt = '2026-01-01T00:00:00.000Z'): NewMessage => ({
  id,
  accountId,
  message: `text of ${id}`,
  createdAt,
});

/** How many rows the COPY running on the database has sent (pg_stat_progress_copy). */
async function copyProgress(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ sent: string }>(
      `SELECT tuples_processed AS sent FROM pg_stat_progress_copy WHERE datname = current_database()`,
    );
    if (rows.length !== 1) throw new Error(`expected one COPY in progress, found ${rows.length}`);
    return Number(rows[0]?.sent);
  } finally {
    await client.end();
  }
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

async function readAll(stream: Readable): Promise<string[]> {
  const texts: string[] = [];
  for await (const batch of stream) texts.push(...(batch as string[]));
  return texts;
}

describe.each(STORE_BACKENDS)('the $name store', (backend) => {
  let scratch: ScratchStore;
  let store: AdminStore;
  const others: AdminStore[] = [];

  /** Another process on the same database. */
  async function another(options = {}): Promise<AdminStore> {
    const other = await scratch.open(options);
    others.push(other);
    return other;
  }

  beforeEach(async ({ skip }) => {
    if (!backend.available) skip('TEST_DATABASE_URL is not set');
    scratch = await backend.create();
    store = await scratch.open({ create: true });
  });

  afterEach(async () => {
    if (!backend.available) return;
    for (const other of others.splice(0)) await other.close();
    await store.close();
    await scratch.drop();
  });

  /** Runs `sql` on the database itself, past the store, as an earlier version or another tool could. */
  async function onDatabase(sql: string): Promise<void> {
    const { location } = scratch;
    if (location.kind === 'sqlite') {
      const db = new Database(location.path);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: location.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  /** The Idempotency-Keys the database holds, read past the store. */
  async function storedKeys(): Promise<string[]> {
    const sql = 'SELECT key FROM idempotency_keys ORDER BY key';
    const { location } = scratch;
    if (location.kind === 'sqlite') {
      const db = new Database(location.path, { readonly: true });
      try {
        return db.prepare<[], string>(sql).pluck().all();
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: location.url });
    await client.connect();
    try {
      return (await client.query<{ key: string }>(sql)).rows.map(({ key }) => key);
    } finally {
      await client.end();
    }
  }

  describe('orders', () => {
    it('lists orders that are not cancelled, by id, leaving out absent fields', async () => {
      const a = await store.orders.addOrder({ petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true });
      const b = await store.orders.addOrder({ petId: 2, quantity: 1 });
      const c = await store.orders.addOrder({ status: 'shipped' });
      await store.orders.cancelOrder(b.id);
      expect(await store.orders.listOrders()).toStrictEqual({
        version: expect.any(String),
        orders: [
          { id: a.id, petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true },
          { id: c.id, complete: false },
        ],
      });
    });

    it('gives the operator every order with its status and times', async () => {
      const added = await store.orders.addOrder({ petId: 7, quantity: 3 });
      expect(added).toStrictEqual({
        id: expect.any(Number),
        petId: 7,
        quantity: 3,
        complete: false,
        status: 'pending',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: added.createdAt,
      });
      expect(await store.orders.findOrder(added.id)).toStrictEqual(added);
      expect(await store.orders.findOrder(added.id + 1)).toBeUndefined();
      expect(await store.orders.listAllOrders()).toStrictEqual([added]);
    });

    it("keeps the list's version while nothing changed, in every process, across a restart; any change gives a new one", async () => {
      await store.orders.addOrder({ petId: 1, quantity: 1 });
      const other = await another();
      const first = await store.orders.listOrders();
      expect(await store.orders.listOrders()).toBe(first);
      expect((await other.orders.listOrders()).version).toBe(first.version);
      const seen = [first.version];

      await other.orders.addOrder({ petId: 2, quantity: 1 });
      await nextTurn();
      const second = await store.orders.listOrders();
      expect(seen).not.toContain(second.version);
      expect((await other.orders.listOrders()).version).toBe(second.version);
      seen.push(second.version);

      await other.orders.cancelOrder(1);
      await nextTurn();
      const third = await store.orders.listOrders();
      expect(seen).not.toContain(third.version);
      expect(third).toMatchObject({ orders: [{ id: 2 }] });
      seen.push(third.version);

      await store.close();
      store = await scratch.open();
      expect((await store.orders.listOrders()).version).toBe(third.version);
      await store.orders.addOrder({ petId: 3, quantity: 1 });
      expect(seen).not.toContain((await store.orders.listOrders()).version);
    });

    it("keeps the list's version while only other things are written, and gives each of 1,100 order changes a new one", async () => {
      await store.orders.addOrder({ petId: 1, quantity: 1 });
      const other = await another();
      const before = (await store.orders.listOrders()).version;

      const account = await other.keys.createAccount('someone');
      await other.keys.createKey(account.id, keyDigest(generateKey()), 'sok_abcd');
      await other.messages.enqueueMessage(message(account.id, 'msg_1'));
      await other.pets.addPet('Rex');
      await other.telemetry.recordDeprecatedCalls([
        { operationId: 'getPetById', accountId: account.id, firstCallAt: '2026-01-01T00:00:00.000Z', lastCallAt: '2026-01-01T00:00:00.000Z', count: 1 },
      ]);
      if (scratch.location.kind === 'postgres') {
        // Transactions of another database of the same server move every snapshot, not the list.
        const elsewhere = await backend.create();
        const stranger = await elsewhere.open({ create: true });
        await stranger.orders.addOrder({ petId: 1, quantity: 1 });
        await stranger.close();
        await elsewhere.drop();
      }
      await nextTurn();
      expect((await store.orders.listOrders()).version).toBe(before);
      expect((await other.orders.listOrders()).version).toBe(before);

      // Past the thousandth change, where PostgreSQL folds its count of changes.
      const seen = new Set([before]);
      for (let change = 0; change < 1_100; change++) {
        await other.orders.addOrder({ petId: 1, quantity: 1 });
        const { version } = await other.orders.listOrders();
        expect(seen.has(version)).toBe(false);
        seen.add(version);
      }
      await nextTurn();
      const after = await store.orders.listOrders();
      expect(after.version).toBe((await other.orders.listOrders()).version);
      expect(after).toMatchObject({ orders: { length: 1_101 } });
    });

    it('cancels only a pending order, and tells shipped from missing', async () => {
      const pending = await store.orders.addOrder({ petId: 1, quantity: 1 });
      const shipped = await store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
      expect(await store.orders.cancelOrder(pending.id)).toBe('cancelled');
      expect(await store.orders.cancelOrder(pending.id)).toBe('missing');
      expect(await store.orders.cancelOrder(shipped.id)).toBe('shipped');
      expect((await store.orders.findOrder(shipped.id))?.status).toBe('shipped');
      expect((await store.orders.findOrder(pending.id))?.status).toBe('cancelled');
      expect(await store.orders.cancelOrder(999)).toBe('missing');
      expect(await store.orders.cancelOrder(2 ** 60)).toBe('missing');
    });

    it('ships only a pending order', async () => {
      const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
      expect(await store.orders.shipOrder(order.id)).toBe('shipped');
      expect(await store.orders.shipOrder(order.id)).toBe('not_pending');
      expect(await store.orders.shipOrder(999)).toBe('missing');
    });

    it('takes no number beyond 2^53 - 1 for an id: lookups find nothing, moves and revocations answer missing', async () => {
      // 2^53 is a number exactly, and another tool could store it; the store never issues it.
      const beyond = 2 ** 53;
      await onDatabase(
        `INSERT INTO orders (id, status, created_at, updated_at) VALUES (${beyond}, 'pending', 'x', 'x');
         INSERT INTO pets (id, name, created_at) VALUES (${beyond}, 'Far', 'x');`,
      );
      for (const id of [beyond, 2 ** 63]) {
        expect(await store.orders.findOrder(id)).toBeUndefined();
        expect(await store.orders.cancelOrder(id)).toBe('missing');
        expect(await store.orders.shipOrder(id)).toBe('missing');
        expect(await store.pets.findPet(id)).toBeUndefined();
        expect(await store.keys.revokeKeyById(id)).toBe('missing');
      }
    });

    it('imports all orders in one transaction, or none', async () => {
      expect(await store.orders.importOrders([{ petId: 1, quantity: 1 }, { petId: 2 }])).toBe(2);
      // A CHECK constraint failing on the second row rolls back the first.
      await expect(
        store.orders.importOrders([
          { petId: 3, quantity: 1 },
          { petId: 4, quantity: 0 },
        ]),
      ).rejects.toThrow();
      expect((await store.orders.listAllOrders()).map((order) => order.petId)).toEqual([1, 2]);
      expect(await store.orders.importOrders([])).toBe(0);
    });

    it('moves ship dates an earlier version stored outside years 0000 to 9999 in UTC to the nearest it keeps, and stores no other', async () => {
      await store.orders.importOrders([{ shipDate: '2026-12-01T00:00:00.000Z' }, {}]);
      // The database as the version before this migration left it, with the dates its CLI could store.
      const legacy = `INSERT INTO orders (ship_date, complete, status, created_at, updated_at) VALUES
        ('+010000-01-01T22:59:00.000Z', false, 'pending', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
        ('-000001-12-31T23:00:00.000Z', false, 'shipped', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');`;
      await onDatabase(
        scratch.location.kind === 'sqlite'
          ? `DROP TRIGGER ship_date_added; DROP TRIGGER ship_date_changed;
             PRAGMA user_version = ${SQLITE_MIGRATIONS.length - 1}; ${legacy.replace(/false/g, '0')}`
          : `ALTER TABLE orders DROP CONSTRAINT ship_date_in_range;
             DELETE FROM schema_migrations WHERE version = ${POSTGRES_MIGRATIONS.length}; ${legacy}`,
      );
      const upgraded = await another();
      const [first, second, late, early] = await upgraded.orders.listAllOrders();
      expect([first?.shipDate, second?.shipDate, late?.shipDate, early?.shipDate]).toEqual([
        '2026-12-01T00:00:00.000Z',
        undefined,
        '9999-12-31T23:59:59.999Z',
        '0000-01-01T00:00:00.000Z',
      ]);
      expect(late?.updatedAt).not.toBe('2026-01-01T00:00:00.000Z');
      expect(first?.updatedAt).toBe(first?.createdAt);
      // Compared as text, each is now on the side of 2026 that it is in time.
      const page = await upgraded.orders.listOrderPage({
        filter: { statuses: ['pending', 'shipped'], shipDateFrom: '2026-01-01T00:00:00.000Z' },
        afterId: 0,
        limit: 10,
      });
      expect(page.orders.map(({ id }) => id)).toEqual([first?.id, late?.id]);
      for (const shipDate of ['+010000-01-01T00:00:00.000Z', '-000001-12-31T23:59:59.999Z']) {
        await expect(upgraded.orders.addOrder({ shipDate })).rejects.toThrow();
      }
      await expect(onDatabase(`UPDATE orders SET ship_date = '+010000-01-01T00:00:00.000Z'`)).rejects.toThrow();
    });

    it('counts orders by status', async () => {
      await store.orders.importOrders([{ petId: 1 }, { petId: 2 }, { petId: 3, status: 'shipped' }]);
      await store.orders.cancelOrder(1);
      expect(await store.telemetry.countOrdersByStatus()).toStrictEqual({ pending: 1, shipped: 1, cancelled: 1 });
    });
  });

  describe('pages of orders', () => {
    const OPEN: OrderFilter = { statuses: ['pending', 'shipped'] };
    const EVERY: OrderFilter = { statuses: ['pending', 'shipped', 'cancelled'] };
    const ids = async (filter: OrderFilter, afterId = 0, limit = 100) =>
      (await store.orders.listOrderPage({ filter, afterId, limit })).orders.map(({ id }) => id);

    /** Six orders: 3 cancelled and without a ship date; 2 and 4 shipped. */
    async function sixOrders() {
      await store.orders.importOrders([
        { petId: 1, quantity: 1, shipDate: '2026-01-01T00:00:00.000Z', complete: true },
        { petId: 2, quantity: 1, shipDate: '2026-02-01T00:00:00.000Z', complete: false, status: 'shipped' },
        { petId: 1, quantity: 1, complete: false },
        { petId: 1, quantity: 1, shipDate: '2026-03-01T00:00:00.000Z', complete: false, status: 'shipped' },
        { petId: 3, quantity: 1, shipDate: '2026-02-01T00:00:00.000Z', complete: true },
        { petId: 1, quantity: 1, shipDate: '2026-02-15T00:00:00.000Z', complete: false },
      ]);
      expect(await store.orders.cancelOrder(3)).toBe('cancelled');
    }

    it('reads the matching orders by id, a page at a time, with their status, saying whether more follow', async () => {
      await sixOrders();
      const first = await store.orders.listOrderPage({ filter: OPEN, afterId: 0, limit: 2 });
      expect(first).toMatchObject({
        nextAfterId: 2,
        orders: [
          { id: 1, petId: 1, quantity: 1, shipDate: '2026-01-01T00:00:00.000Z', complete: true, status: 'pending' },
          { id: 2, status: 'shipped' },
        ],
      });
      expect(await store.orders.listOrderPage({ filter: OPEN, afterId: 2, limit: 2 })).toMatchObject({
        nextAfterId: 5,
        orders: [{ id: 4 }, { id: 5 }],
      });
      expect(await store.orders.listOrderPage({ filter: OPEN, afterId: 5, limit: 2 })).toMatchObject({
        nextAfterId: undefined,
        orders: [{ id: 6 }],
      });
      expect(await store.orders.listOrderPage({ filter: OPEN, afterId: 6, limit: 2 })).toMatchObject({
        nextAfterId: undefined,
        orders: [],
      });
      // A field the store has no value for is left out.
      const [cancelled] = (await store.orders.listOrderPage({ filter: { statuses: ['cancelled'] }, afterId: 0, limit: 5 }))
        .orders;
      expect(cancelled).toEqual({ id: 3, petId: 1, quantity: 1, complete: false, status: 'cancelled' });
    });

    it('filters by status, pet, completion and ship date: from inclusive, before exclusive, no date no match', async () => {
      await sixOrders();
      expect(await ids(OPEN)).toEqual([1, 2, 4, 5, 6]);
      expect(await ids(EVERY)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await ids({ statuses: ['cancelled'] })).toEqual([3]);
      expect(await ids({ statuses: ['shipped', 'cancelled'] })).toEqual([2, 3, 4]);
      expect(await ids({ ...OPEN, petId: 1 })).toEqual([1, 4, 6]);
      expect(await ids({ ...EVERY, petId: 1 })).toEqual([1, 3, 4, 6]);
      expect(await ids({ ...OPEN, petId: 9 })).toEqual([]);
      expect(await ids({ ...OPEN, complete: true })).toEqual([1, 5]);
      expect(await ids({ ...EVERY, complete: false })).toEqual([2, 3, 4, 6]);
      expect(await ids({ ...OPEN, shipDateFrom: '2026-02-01T00:00:00.000Z' })).toEqual([2, 4, 5, 6]);
      expect(await ids({ ...OPEN, shipDateBefore: '2026-02-01T00:00:00.000Z' })).toEqual([1]);
      expect(
        await ids({ ...OPEN, shipDateFrom: '2026-02-01T00:00:00.000Z', shipDateBefore: '2026-03-01T00:00:00.000Z' }),
      ).toEqual([2, 5, 6]);
      expect(await ids({ ...EVERY, shipDateBefore: '2099-01-01T00:00:00.000Z' })).toEqual([1, 2, 4, 5, 6]);
      expect(await ids({ ...EVERY, petId: 1, complete: false, shipDateFrom: '2026-02-01T00:00:00.000Z' })).toEqual([4, 6]);
      // The operator's listing takes the same filters, with the stored times.
      const listed = await store.orders.listAllOrders({ ...EVERY, petId: 1, complete: false });
      expect(listed.map(({ id, status }) => [id, status])).toEqual([
        [3, 'cancelled'],
        [4, 'shipped'],
        [6, 'pending'],
      ]);
      expect(listed[0]).toHaveProperty('updatedAt');
    });

    it('walks every page while others cancel, ship and add orders: no order twice, none skipped that matched throughout', async () => {
      await store.orders.importOrders(Array.from({ length: 30 }, (_, i) => ({ petId: (i % 3) + 1, quantity: 1 })));
      const other = await another();
      const seen: number[] = [];
      const changed = new Set<number>();
      const added: number[] = [];
      let afterId = 0;
      for (let page = 0; ; page++) {
        const { orders, nextAfterId } = await store.orders.listOrderPage({ filter: OPEN, afterId, limit: 4 });
        seen.push(...orders.map(({ id }) => id));
        if (nextAfterId === undefined) break;
        afterId = nextAfterId;
        // Ahead of the walk: one cancelled (it stops matching), one shipped (it still matches); behind it,
        // one cancelled; and a new order.
        for (const [id, change] of [
          [afterId + 1, 'cancel'],
          [afterId + 2, 'ship'],
          [afterId - 1, 'cancel'],
        ] as const) {
          if (id > 30 || id < 1) continue;
          const outcome = change === 'cancel' ? await other.orders.cancelOrder(id) : await other.orders.shipOrder(id);
          if (outcome === 'cancelled') changed.add(id);
        }
        if (page < 5) added.push((await other.orders.addOrder({ petId: 1, quantity: 1 })).id);
        await nextTurn();
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const matchedThroughout = Array.from({ length: 30 }, (_, i) => i + 1).filter((id) => !changed.has(id));
      for (const id of [...matchedThroughout, ...added]) expect(seen).toContain(id);
      expect(changed.size).toBeGreaterThan(5);
    });

    it('answers every page from an index, the first and one deep down: never by reading every order', async () => {
      const count = 20_000;
      await store.orders.importOrders(
        Array.from({ length: count }, (_, i) => ({
          petId: (i % 500) + 1,
          quantity: 1,
          shipDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
          complete: i % 2 === 0,
          status: i % 100 === 0 ? ('shipped' as const) : ('pending' as const),
        })),
      );
      const queries: OrderPageQuery[] = [];
      for (const afterId of [0, count - 1_000]) {
        for (const filter of [
          OPEN,
          EVERY,
          { statuses: ['shipped'] },
          { ...OPEN, petId: 7 },
          { ...OPEN, complete: true, shipDateFrom: '2026-01-05T00:00:00.000Z', shipDateBefore: '2026-01-09T00:00:00.000Z' },
          // Matching none: the page examines as many orders as it may.
          { ...EVERY, complete: true, shipDateFrom: '2030-01-01T00:00:00.000Z' },
          { ...EVERY, petId: 7, complete: false },
        ] satisfies OrderFilter[]) {
          queries.push({ filter, afterId, limit: 100 });
        }
      }
      for (const query of queries) {
        const { reads, sorts } = await queryPlan(query);
        expect(reads.length, JSON.stringify(query)).toBeGreaterThan(0);
        // SQLite: SEARCH … USING INDEX (never SCAN); PostgreSQL: an index scan, or a bitmap heap scan of
        // what a bitmap index scan found (never Seq Scan).
        for (const step of reads) {
          expect(step, JSON.stringify(query)).toMatch(/^SEARCH orders USING (COVERING )?INDEX |(Index|Index Only|Bitmap Heap) Scan/);
        }
        // SQLite merges the arms as they are read, never sorted: only the page's own rows are, at the end.
        expect(sorts, JSON.stringify(query)).toEqual([]);
      }
    });

    it(`examines at most ${EXAMINED_PER_PAGE.toLocaleString('en')} orders of the statuses asked for a page; one that finds too few matches ends where it stopped, even empty, and the next goes on from there`, async () => {
      // Three times the bound, three orders in four shipped; complete=true matches four shipped ones only:
      // the first, the bound's last and the one after it, and the last.
      const count = 3 * EXAMINED_PER_PAGE;
      const shipped = (id: number) => id % 4 !== 1;
      const candidates = Array.from({ length: count }, (_, i) => i + 1).filter(shipped);
      const nth = (n: number) => candidates[n - 1] as number;
      const matching = new Set([nth(1), nth(EXAMINED_PER_PAGE), nth(EXAMINED_PER_PAGE + 1), count]);
      await store.orders.importOrders(
        Array.from({ length: count }, (_, i) => ({
          petId: 1,
          quantity: 1,
          complete: matching.has(i + 1),
          status: shipped(i + 1) ? ('shipped' as const) : ('pending' as const),
        })),
      );
      const filter: OrderFilter = { statuses: ['shipped'], complete: true };
      const pages: { ids: number[]; nextAfterId: number | undefined }[] = [];
      let afterId = 0;
      do {
        const page = await store.orders.listOrderPage({ filter, afterId, limit: 100 });
        pages.push({ ids: page.orders.map(({ id }) => id), nextAfterId: page.nextAfterId });
        afterId = page.nextAfterId ?? afterId;
      } while (pages.at(-1)?.nextAfterId !== undefined);
      // Pending orders are not examined: each page ends at the bound's shipped order.
      expect(pages).toEqual([
        { ids: [nth(1), nth(EXAMINED_PER_PAGE)], nextAfterId: nth(EXAMINED_PER_PAGE) },
        { ids: [nth(EXAMINED_PER_PAGE + 1)], nextAfterId: nth(2 * EXAMINED_PER_PAGE) },
        { ids: [count], nextAfterId: undefined },
      ]);
      // A page that examines its whole bound and finds nothing is empty, and not the last.
      const after = (n: number) => store.orders.listOrderPage({ filter, afterId: nth(n), limit: 100 });
      expect(await after(1)).toMatchObject({
        orders: [{ id: nth(EXAMINED_PER_PAGE) }, { id: nth(EXAMINED_PER_PAGE + 1) }],
        nextAfterId: nth(EXAMINED_PER_PAGE + 1),
      });
      expect(await after(EXAMINED_PER_PAGE + 1)).toMatchObject({ orders: [], nextAfterId: nth(2 * EXAMINED_PER_PAGE + 1) });
      // Where enough match, the page is full and ends at its last order, as before.
      expect(await store.orders.listOrderPage({ filter: { statuses: ['shipped'] }, afterId: 0, limit: 3 })).toMatchObject({
        orders: [{ id: 2 }, { id: 3 }, { id: 4 }],
        nextAfterId: 4,
      });
      if (scratch.location.kind === 'postgres') {
        // PostgreSQL's own count of the rows each of its scans read (those its filter dropped included):
        // none reads past the last order examined, the bound's (every order here is pending or shipped).
        const worst: OrderPageQuery = { filter: { ...EVERY, complete: false, shipDateFrom: '2030-01-01T00:00:00.000Z' }, afterId: 0, limit: 1_000 };
        expect((await store.orders.listOrderPage(worst)).nextAfterId).toBe(EXAMINED_PER_PAGE);
        const scans = await rowsReadByScan(worst);
        expect(scans.length).toBeGreaterThan(0);
        for (const rows of scans) expect(rows).toBeLessThanOrEqual(EXAMINED_PER_PAGE + 1);
      }
    });

    /** The page query of `query` as `backend` writes it, with its parameters' values. */
    function pageStatement({ filter, afterId, limit }: OrderPageQuery): { sql: string; values: unknown[] } {
      const values: unknown[] = [];
      const dialect = scratch.location.kind === 'sqlite' ? sqlitePageDialect(values) : postgresPageDialect(values);
      return { sql: orderPageSql(filter, afterId, limit, dialect), values };
    }

    /** PostgreSQL: the rows that each of the page query's scans of orders read, as EXPLAIN ANALYZE counts them. */
    async function rowsReadByScan(query: OrderPageQuery): Promise<number[]> {
      const { sql, values } = pageStatement(query);
      await postgresRows('ANALYZE orders');
      const [plan] = await postgresRows<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values);
      const scans = (node: PlanNode): number[] => [
        ...(node['Relation Name'] === 'orders' ? [node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)] : []),
        ...(node.Plans ?? []).flatMap(scans),
      ];
      return scans(plan!['QUERY PLAN'][0].Plan);
    }

    /** How the database reads the orders table for `query` (one line per access), and what SQLite sorts below the top. */
    async function queryPlan(query: OrderPageQuery): Promise<{ reads: string[]; sorts: string[] }> {
      const { location } = scratch;
      const { sql, values } = pageStatement(query);
      if (location.kind === 'sqlite') {
        const db = new Database(location.path, { readonly: true });
        try {
          const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { parent: number; detail: string }[];
          return {
            reads: plan.map(({ detail }) => detail).filter((detail) => /\borders\b/.test(detail)),
            sorts: plan.filter(({ parent, detail }) => parent !== 0 && /TEMP B-TREE/.test(detail)).map(({ detail }) => detail),
          };
        } finally {
          db.close();
        }
      }
      // The statistics autovacuum would gather on its own, a little later.
      await postgresRows('ANALYZE orders');
      const lines = (await postgresRows<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).map((row) => row['QUERY PLAN']);
      // PostgreSQL may sort an arm it expects few rows of; what its scans read is counted below.
      return { reads: lines.filter((line) => / on orders\b/.test(line)), sorts: [] };
    }

    async function postgresRows<T extends object>(sql: string, values: unknown[] = []): Promise<T[]> {
      if (scratch.location.kind !== 'postgres') throw new Error('not a PostgreSQL store');
      const client = new pg.Client({ connectionString: scratch.location.url });
      await client.connect();
      try {
        return (await client.query<T>(sql, values)).rows;
      } finally {
        await client.end();
      }
    }
  });

  describe('across processes', () => {
    it('200 cancels of one order racing from four processes: exactly one wins, the rest find it gone', async () => {
      const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
      const processes = [store, await another(), await another(), await another()];
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (processes[i % 4] as AdminStore).orders.cancelOrder(order.id)),
      );
      expect(outcomes.filter((outcome) => outcome === 'cancelled')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'missing')).toHaveLength(199);
    });

    it('a cancel racing a ship from another process: each order ends shipped or cancelled, never missing', async () => {
      await store.orders.importOrders(Array.from({ length: 100 }, () => ({ petId: 1, quantity: 1 })));
      const other = await another();
      const results = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const [cancel, ship] = await Promise.all([store.orders.cancelOrder(i + 1), other.orders.shipOrder(i + 1)]);
          return `${cancel}/${ship}`;
        }),
      );
      for (const result of results) expect(['cancelled/not_pending', 'shipped/shipped']).toContain(result);
    });

    it('100 sends racing with one Idempotency-Key from four processes: one message; the rest replay it or are in flight', async () => {
      const account = await store.keys.createAccount('acme');
      const processes = [store, await another(), await another(), await another()];
      const idempotency = { key: 'retry-1', fingerprint: Buffer.from('the same request') };
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (processes[i % 4] as AdminStore).messages.enqueueMessageOnce(message(account.id, `msg_${i}`), idempotency),
        ),
      );
      const queued = outcomes.filter((outcome) => outcome.outcome === 'queued');
      expect(queued).toHaveLength(1);
      const first = queued[0]?.outcome === 'queued' ? queued[0].message : undefined;
      for (const outcome of outcomes) {
        if (outcome.outcome === 'replayed') expect(JSON.parse(outcome.body)).toStrictEqual(first);
        else if (outcome.outcome !== 'queued') expect(outcome).toStrictEqual({ outcome: 'in_flight' });
      }
      expect((await store.messages.listMessages()).map(({ id }) => id)).toEqual([first?.id]);
    });

    it("a key revoked by one process is not found by another's next lookup", async () => {
      const account = await store.keys.createAccount('acme');
      const key = generateKey();
      await store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
      const other = await another();
      expect(await other.keys.findActiveKey(keyDigest(key))).toMatchObject({ accountId: account.id });
      expect(await store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      await nextTurn();
      expect(await other.keys.findActiveKey(keyDigest(key))).toBeUndefined();
    });
  });

  describe('the long list', () => {
    const LONG = 30_000;

    beforeEach(async () => {
      await store.close();
      store = await scratch.open({ streamOrdersAbove: 1_000, maxStreamedLists: 2 });
      await store.orders.importOrders(Array.from({ length: LONG }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    });

    it('is streamed from one snapshot: every order as JSON text, in id order, whatever is written meanwhile', async () => {
      const list = await store.orders.listOrders();
      if (!('rows' in list)) throw new Error('expected a streamed list');
      const batches = (list.rows() as Readable)[Symbol.asyncIterator]();
      const texts = (await batches.next()).value as string[];
      // Written after the stream began: not in it.
      await store.orders.cancelOrder(LONG);
      await store.orders.addOrder({ petId: 1, quantity: 1 });
      for (let next = await batches.next(); !next.done; next = await batches.next()) texts.push(...(next.value as string[]));
      expect(texts[0]).toBe('{"id":1,"petId":1,"quantity":1,"complete":false}');
      expect(texts.map((text) => (JSON.parse(text) as { id: number }).id)).toEqual(
        Array.from({ length: LONG }, (_, i) => i + 1),
      );
    });

    it('holds back the database while its reader takes nothing, in constant memory, past the socket buffers', async () => {
      // 300,000 orders, about 14 MB of JSON: more than the socket buffers between the database and us hold.
      const MORE = 270_000;
      await store.orders.importOrders(Array.from({ length: MORE }, () => ({ petId: 1, quantity: 1 })));
      const list = await store.orders.listOrders();
      if (!('rows' in list)) throw new Error('expected a streamed list');
      const stream = list.rows() as Readable;
      stream.pause();
      stream.read(0);
      const before = process.memoryUsage();
      for (let turn = 0; turn < 50; turn++) await nextTurn();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = process.memoryUsage();
      expect(stream.readableLength).toBeLessThanOrEqual(1);
      expect(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers).toBeLessThan(8 * 2 ** 20);
      if (scratch.location.kind === 'postgres') {
        // The database's own count of the rows it has sent so far: far from all of them.
        const sent = await copyProgress(scratch.location.url);
        expect(sent).toBeLessThan((LONG + MORE) / 2);
      }
      stream.destroy();
    });

    it('streams as many lists at once as allowed, and one more once one is given back', async () => {
      const list = await store.orders.listOrders();
      if (!('rows' in list)) throw new Error('expected a streamed list');
      const first = list.rows() as Readable;
      const second = list.rows() as Readable;
      expect(list.rows()).toBeUndefined();
      await readAll(first);
      second.destroy();
      await nextTurn();
      const third = list.rows() as Readable;
      expect(await readAll(third)).toHaveLength(LONG);
    });
  });

  describe('keys', () => {
    it('finds an active key by digest, and not once it is revoked', async () => {
      const account = await store.keys.createAccount('acme');
      const key = generateKey();
      const listing = await store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
      expect(listing).toStrictEqual({
        id: expect.any(Number),
        account: 'acme',
        displayPrefix: `${key.slice(0, 7)}…`,
        createdAt: expect.any(String),
      });
      expect(await store.keys.findActiveKey(keyDigest(key))).toStrictEqual({
        keyId: listing.id,
        accountId: account.id,
        accountName: 'acme',
        digest: keyDigest(key),
      });
      expect(await store.keys.findActiveKey(keyDigest(generateKey()))).toBeUndefined();
      expect(await store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      expect(await store.keys.findActiveKey(keyDigest(key))).toBeUndefined();
      expect(await store.keys.revokeKeyById(listing.id)).toBe('already_revoked');
      expect(await store.keys.revokeKeyById(999)).toBe('missing');
      expect(await store.keys.revokeKeyByDigest(keyDigest(generateKey()))).toBe('missing');
      expect(await store.keys.listKeys()).toStrictEqual([{ ...listing, revokedAt: expect.any(String) }]);
    });

    it('finds an account by name with its id and creation time, and refuses a second of the same name', async () => {
      const account = await store.keys.createAccount('acme');
      expect(await store.keys.findAccount('acme')).toStrictEqual(account);
      expect(await store.keys.findAccount('globex')).toBeUndefined();
      await expect(store.keys.createAccount('acme')).rejects.toThrow();
    });
  });

  describe('messages', () => {
    it('are stored with their account and listed in arrival order, and counted while queued', async () => {
      const account = await store.keys.createAccount('acme');
      expect(await store.messages.enqueueMessage(message(account.id, 'msg_a'))).toStrictEqual({
        id: 'msg_a',
        message: 'text of msg_a',
        status: 'queued',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      await store.messages.enqueueMessage(message(account.id, 'msg_b', '2026-01-01T00:00:01.000Z'));
      // As JSON text: the CLI prints these records, so their field order is part of what it shows.
      const listed = (id: string, createdAt: string) => ({
        id,
        account: 'acme',
        message: `text of ${id}`,
        status: 'queued',
        createdAt,
      });
      expect(JSON.stringify(await store.messages.listMessages())).toBe(
        JSON.stringify([listed('msg_a', '2026-01-01T00:00:00.000Z'), listed('msg_b', '2026-01-01T00:00:01.000Z')]),
      );
      expect(await store.telemetry.countQueuedMessages()).toBe(2);
    });

    it('with an Idempotency-Key: queued once, replayed as first answered, refused for another request, new after a day', async () => {
      const account = await store.keys.createAccount('acme');
      const idempotency = { key: 'k1', fingerprint: Buffer.from('request a') };
      const first = await store.messages.enqueueMessageOnce(message(account.id, 'msg_1'), idempotency);
      expect(first).toStrictEqual({ outcome: 'queued', message: expect.objectContaining({ id: 'msg_1' }) });
      const firstMessage = first.outcome === 'queued' ? first.message : undefined;
      expect(await store.messages.enqueueMessageOnce(message(account.id, 'msg_2'), idempotency)).toStrictEqual({
        outcome: 'replayed',
        status: 202,
        body: JSON.stringify(firstMessage),
      });
      expect(
        await store.messages.enqueueMessageOnce(message(account.id, 'msg_3'), {
          key: 'k1',
          fingerprint: Buffer.from('request b'),
        }),
      ).toStrictEqual({ outcome: 'key_reused' });
      // Another account's key of the same name is its own.
      const other = await store.keys.createAccount('globex');
      expect((await store.messages.enqueueMessageOnce(message(other.id, 'msg_4'), idempotency)).outcome).toBe('queued');
      // A day and a millisecond later, the key is forgotten.
      const later = await store.messages.enqueueMessageOnce(
        message(account.id, 'msg_5', '2026-01-02T00:00:00.001Z'),
        idempotency,
      );
      expect(later.outcome).toBe('queued');
      expect((await store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_1', 'msg_4', 'msg_5']);
    });

    it('forgets the Idempotency-Keys of more than a day ago beside a later send, at most once a minute', async () => {
      const account = await store.keys.createAccount('acme');
      const send = (key: string, createdAt: string) =>
        store.messages.enqueueMessageOnce(message(account.id, `msg_${key}`, createdAt), { key, fingerprint: Buffer.from(key) });
      /** The keys the database holds, once they are `expected`: the purge runs beside the send, not in it. */
      const keysBecome = async (expected: string[]) => {
        let keys = await storedKeys();
        while (keys.join() !== expected.join()) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          keys = await storedKeys();
        }
        return keys;
      };
      await send('a', '2026-01-01T00:00:00.000Z');
      await send('b', '2026-01-01T00:00:10.000Z');
      await send('c', '2026-01-02T00:00:05.000Z');
      expect(await keysBecome(['b', 'c'])).toEqual(['b', 'c']);
      // Within a minute of that purge, b (now more than a day old too) is kept.
      await send('d', '2026-01-02T00:00:20.000Z');
      expect(await storedKeys()).toEqual(['b', 'c', 'd']);
      await send('e', '2026-01-02T00:01:05.000Z');
      expect(await keysBecome(['c', 'd', 'e'])).toEqual(['c', 'd', 'e']);
    });
  });

  describe('pets, deprecated calls and readiness', () => {
    it('adds and finds a pet', async () => {
      const pet = await store.pets.addPet('Rex');
      expect(await store.pets.findPet(pet.id)).toStrictEqual({ id: pet.id, name: 'Rex' });
      expect(await store.pets.findPet(pet.id + 1)).toBeUndefined();
      expect(await store.pets.findPet(2 ** 60)).toBeUndefined();
    });

    it('adds recorded calls to those already there, keeping the first and the last', async () => {
      const account = await store.keys.createAccount('acme');
      const calls = (firstCallAt: string, lastCallAt: string, count: number) => [
        { operationId: 'getPetById', accountId: account.id, firstCallAt, lastCallAt, count },
      ];
      await store.telemetry.recordDeprecatedCalls(calls('2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', 2));
      await store.telemetry.recordDeprecatedCalls(calls('2026-01-01T00:00:00.000Z', '2026-01-02T12:00:00.000Z', 3));
      await store.telemetry.recordDeprecatedCalls([]);
      expect(await store.telemetry.listDeprecatedCalls()).toStrictEqual([
        {
          operationId: 'getPetById',
          account: 'acme',
          firstCallAt: '2026-01-01T00:00:00.000Z',
          lastCallAt: '2026-01-03T00:00:00.000Z',
          count: 5,
        },
      ]);
    });

    it('is ready while the database answers', async () => {
      expect(await store.isReady()).toBe(true);
    });
  });
});
