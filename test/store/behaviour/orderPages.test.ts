// Pages of orders (API v2's listOrders), on every backend: filtered, by id, a walk that others write during,
// and each page's work bounded, read from the database's own query plans.
import { describe, expect, it } from 'vitest';
import { EXAMINED_PER_PAGE, orderPageSql } from '../../../src/store/orderPages.js';
import type { OrderFilter, OrderPageQuery } from '../../../src/store/store.js';
import type { Statement } from '../../support/storeBackends.js';
import { nextTurn, onEveryBackend } from '../../support/storeSuite.js';
import { callerFor } from '../../support/caller.js';

const OPEN: OrderFilter = { statuses: ['pending', 'shipped'] };
const EVERY: OrderFilter = { statuses: ['pending', 'shipped', 'cancelled'] };

onEveryBackend('the $kind store', (t) => {
  describe('pages of orders', () => {
    const ids = async (filter: OrderFilter, afterId = 0, limit = 100) =>
      (await t.store.orders.listOrderPage({ filter, afterId, limit })).orders.map(({ id }) => id);

    /** Six orders: 3 cancelled and without a ship date; 2 and 4 shipped. */
    async function sixOrders() {
      await t.store.orders.importOrders([
        { petId: 1, quantity: 1, shipDate: '2026-01-01T00:00:00.000Z', complete: true },
        { petId: 2, quantity: 1, shipDate: '2026-02-01T00:00:00.000Z', complete: false, status: 'shipped' },
        { petId: 1, quantity: 1, complete: false },
        { petId: 1, quantity: 1, shipDate: '2026-03-01T00:00:00.000Z', complete: false, status: 'shipped' },
        { petId: 3, quantity: 1, shipDate: '2026-02-01T00:00:00.000Z', complete: true },
        { petId: 1, quantity: 1, shipDate: '2026-02-15T00:00:00.000Z', complete: false },
      ]);
      expect(await t.store.orders.cancelOrder(3, await callerFor(t.store))).toBe('cancelled');
    }

    /** The page query of `query` as the backend writes it, with its parameters' values. */
    function pageStatement({ filter, afterId, limit }: OrderPageQuery): Statement {
      const values: unknown[] = [];
      const sql = orderPageSql(filter, afterId, limit, t.backend.pageDialect(values));
      return { sql, values };
    }

    it('reads the matching orders by id, a page at a time, with their status, saying whether more follow', async () => {
      await sixOrders();
      const first = await t.store.orders.listOrderPage({ filter: OPEN, afterId: 0, limit: 2 });
      expect(first).toMatchObject({
        nextAfterId: 2,
        orders: [
          { id: 1, petId: 1, quantity: 1, shipDate: '2026-01-01T00:00:00.000Z', complete: true, status: 'pending' },
          { id: 2, status: 'shipped' },
        ],
      });
      expect(await t.store.orders.listOrderPage({ filter: OPEN, afterId: 2, limit: 2 })).toMatchObject({
        nextAfterId: 5,
        orders: [{ id: 4 }, { id: 5 }],
      });
      expect(await t.store.orders.listOrderPage({ filter: OPEN, afterId: 5, limit: 2 })).toMatchObject({
        nextAfterId: undefined,
        orders: [{ id: 6 }],
      });
      expect(await t.store.orders.listOrderPage({ filter: OPEN, afterId: 6, limit: 2 })).toMatchObject({
        nextAfterId: undefined,
        orders: [],
      });
      // A field the store has no value for is left out.
      const [cancelled] = (await t.store.orders.listOrderPage({ filter: { statuses: ['cancelled'] }, afterId: 0, limit: 5 }))
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
      const listed = await t.store.orders.listAllOrders({ ...EVERY, petId: 1, complete: false });
      expect(listed.map(({ id, status }) => [id, status])).toEqual([
        [3, 'cancelled'],
        [4, 'shipped'],
        [6, 'pending'],
      ]);
      expect(listed[0]).toHaveProperty('updatedAt');
    });

    it('walks every page while others cancel, ship and add orders: no order twice, none skipped that matched throughout', async () => {
      await t.store.orders.importOrders(Array.from({ length: 30 }, (_, i) => ({ petId: (i % 3) + 1, quantity: 1 })));
      const other = await t.another();
      const seen: number[] = [];
      const changed = new Set<number>();
      const added: number[] = [];
      let afterId = 0;
      for (let page = 0; ; page++) {
        const { orders, nextAfterId } = await t.store.orders.listOrderPage({ filter: OPEN, afterId, limit: 4 });
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
          const outcome = change === 'cancel' ? await other.orders.cancelOrder(id, await callerFor(other)) : await other.orders.shipOrder(id);
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
      await t.store.orders.importOrders(
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
        const { reads, sorts } = await t.scratch.queryPlan(pageStatement(query));
        expect(reads.length, JSON.stringify(query)).toBeGreaterThan(0);
        for (const step of reads) expect(step, JSON.stringify(query)).toMatch(t.backend.indexRead);
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
      await t.store.orders.importOrders(
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
        const page = await t.store.orders.listOrderPage({ filter, afterId, limit: 100 });
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
      const after = (n: number) => t.store.orders.listOrderPage({ filter, afterId: nth(n), limit: 100 });
      expect(await after(1)).toMatchObject({
        orders: [{ id: nth(EXAMINED_PER_PAGE) }, { id: nth(EXAMINED_PER_PAGE + 1) }],
        nextAfterId: nth(EXAMINED_PER_PAGE + 1),
      });
      expect(await after(EXAMINED_PER_PAGE + 1)).toMatchObject({ orders: [], nextAfterId: nth(2 * EXAMINED_PER_PAGE + 1) });
      // Where enough match, the page is full and ends at its last order, as before.
      expect(await t.store.orders.listOrderPage({ filter: { statuses: ['shipped'] }, afterId: 0, limit: 3 })).toMatchObject({
        orders: [{ id: 2 }, { id: 3 }, { id: 4 }],
        nextAfterId: 4,
      });
      if (t.scratch.rowsReadByScan) {
        // The database's own count of the rows each of its scans read: none reads past the last order
        // examined, the bound's (every order here is pending or shipped).
        const worst: OrderPageQuery = { filter: { ...EVERY, complete: false, shipDateFrom: '2030-01-01T00:00:00.000Z' }, afterId: 0, limit: 1_000 };
        expect((await t.store.orders.listOrderPage(worst)).nextAfterId).toBe(EXAMINED_PER_PAGE);
        const scans = await t.scratch.rowsReadByScan(pageStatement(worst));
        expect(scans.length).toBeGreaterThan(0);
        for (const rows of scans) expect(rows).toBeLessThanOrEqual(EXAMINED_PER_PAGE + 1);
      }
    });
  });
});
