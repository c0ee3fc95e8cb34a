// Orders, on every backend: listed, found, cancelled, shipped and imported, each outcome as store.ts names
// it; the list's version, which every process sharing the database agrees on; and the races between
// processes over one order.
import { describe, expect, it } from 'vitest';
import type { AdminStore, Principal } from '../../../src/store/store.js';
import { callerFor, newCaller } from '../../support/caller.js';
import { scratchDatabase } from '../../support/storeBackends.js';
import { listOf, message, nextTurn, onEveryBackend, retriedWhileBusy } from '../../support/storeSuite.js';

onEveryBackend('the $kind store', (t) => {
  describe('orders', () => {
    it('lists orders that are not cancelled, by id, leaving out absent fields', async () => {
      const a = await t.store.orders.addOrder({ petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true });
      const b = await t.store.orders.addOrder({ petId: 2, quantity: 1 });
      const c = await t.store.orders.addOrder({ status: 'shipped' });
      await t.store.orders.cancelOrder(b.id, await callerFor(t.store));
      expect(await listOf(t.store)).toStrictEqual({
        version: expect.any(String),
        orders: [
          { id: a.id, petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true },
          { id: c.id, complete: false },
        ],
      });
    });

    it('gives the operator every order with its status and times', async () => {
      const added = await t.store.orders.addOrder({ petId: 7, quantity: 3 });
      expect(added).toStrictEqual({
        id: expect.any(Number),
        petId: 7,
        quantity: 3,
        complete: false,
        status: 'pending',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: added.createdAt,
      });
      expect(await t.store.orders.findOrder(added.id)).toStrictEqual(added);
      expect(await t.store.orders.findOrder(added.id + 1)).toBeUndefined();
      expect(await t.store.orders.listAllOrders()).toStrictEqual([added]);
    });

    it("keeps the list's version while nothing changed, in every process, across a restart; any change gives a new one", async () => {
      await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const other = await t.another();
      const first = await listOf(t.store);
      expect(await listOf(t.store)).toBe(first);
      expect((await listOf(other)).version).toBe(first.version);
      const seen = [first.version];

      await other.orders.addOrder({ petId: 2, quantity: 1 });
      await nextTurn();
      const second = await listOf(t.store);
      expect(seen).not.toContain(second.version);
      expect((await listOf(other)).version).toBe(second.version);
      seen.push(second.version);

      await other.orders.cancelOrder(1, await callerFor(other));
      await nextTurn();
      const third = await listOf(t.store);
      expect(seen).not.toContain(third.version);
      expect(third).toMatchObject({ orders: [{ id: 2 }] });
      seen.push(third.version);

      const restarted = await t.restart();
      expect((await listOf(restarted)).version).toBe(third.version);
      await restarted.orders.addOrder({ petId: 3, quantity: 1 });
      expect(seen).not.toContain((await listOf(restarted)).version);
    });

    it("keeps the list's version while only other things are written, and gives each of 1,100 order changes a new one", async () => {
      await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const other = await t.another();
      const before = (await listOf(t.store)).version;

      const someone = await newCaller(other, 'someone');
      await other.messages.enqueueMessage(message('msg_1'), someone);
      await other.pets.addPet('Rex');
      await other.telemetry.recordDeprecatedCalls([
        { operationId: 'getPetById', accountId: someone.accountId, firstCallAt: '2026-01-01T00:00:00.000Z', lastCallAt: '2026-01-01T00:00:00.000Z', count: 1 },
      ]);
      // Transactions of another database (of the same server, on PostgreSQL) move every snapshot, not the list.
      const elsewhere = await scratchDatabase(t.backend.kind);
      const stranger = await elsewhere.open({ create: true });
      await stranger.orders.addOrder({ petId: 1, quantity: 1 });
      await stranger.close();
      await elsewhere.drop();
      await nextTurn();
      expect((await listOf(t.store)).version).toBe(before);
      expect((await listOf(other)).version).toBe(before);

      // Past the thousandth change, where PostgreSQL folds its count of changes.
      const seen = new Set([before]);
      for (let change = 0; change < 1_100; change++) {
        await other.orders.addOrder({ petId: 1, quantity: 1 });
        const { version } = await listOf(other);
        expect(seen.has(version)).toBe(false);
        seen.add(version);
      }
      await nextTurn();
      const after = await listOf(t.store);
      expect(after.version).toBe((await listOf(other)).version);
      expect(after).toMatchObject({ orders: { length: 1_101 } });
    });

    it('cancels only a pending order, and tells shipped from missing', async () => {
      const pending = await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const shipped = await t.store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
      expect(await t.store.orders.cancelOrder(pending.id, await callerFor(t.store))).toBe('cancelled');
      expect(await t.store.orders.cancelOrder(pending.id, await callerFor(t.store))).toBe('missing');
      expect(await t.store.orders.cancelOrder(shipped.id, await callerFor(t.store))).toBe('shipped');
      expect((await t.store.orders.findOrder(shipped.id))?.status).toBe('shipped');
      expect((await t.store.orders.findOrder(pending.id))?.status).toBe('cancelled');
      expect(await t.store.orders.cancelOrder(999, await callerFor(t.store))).toBe('missing');
      expect(await t.store.orders.cancelOrder(2 ** 60, await callerFor(t.store))).toBe('missing');
    });

    it('ships only a pending order', async () => {
      const order = await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      expect(await t.store.orders.shipOrder(order.id)).toBe('shipped');
      expect(await t.store.orders.shipOrder(order.id)).toBe('not_pending');
      expect(await t.store.orders.shipOrder(999)).toBe('missing');
    });

    it('takes no number beyond 2^53 - 1 for an id: lookups find nothing, moves and revocations answer missing', async () => {
      // 2^53 is a number exactly, and another tool could store it; the store never issues it.
      const beyond = 2 ** 53;
      await t.scratch.execute(
        `INSERT INTO orders (id, status, created_at, updated_at) VALUES (${beyond}, 'pending', 'x', 'x');
         INSERT INTO pets (id, name, created_at) VALUES (${beyond}, 'Far', 'x');`,
      );
      for (const id of [beyond, 2 ** 63]) {
        expect(await t.store.orders.findOrder(id)).toBeUndefined();
        expect(await t.store.orders.cancelOrder(id, await callerFor(t.store))).toBe('missing');
        expect(await t.store.orders.shipOrder(id)).toBe('missing');
        expect(await t.store.pets.findPet(id)).toBeUndefined();
        expect(await t.store.keys.revokeKeyById(id)).toBe('missing');
      }
    });

    it('imports all orders in one transaction, or none', async () => {
      expect(await t.store.orders.importOrders([{ petId: 1, quantity: 1 }, { petId: 2 }])).toBe(2);
      // A CHECK constraint failing on the second row rolls back the first.
      await expect(
        t.store.orders.importOrders([
          { petId: 3, quantity: 1 },
          { petId: 4, quantity: 0 },
        ]),
      ).rejects.toThrow();
      expect((await t.store.orders.listAllOrders()).map((order) => order.petId)).toEqual([1, 2]);
      expect(await t.store.orders.importOrders([])).toBe(0);
    });
  });

  describe('across processes', () => {
    it('200 cancels of one order racing from four processes: exactly one wins, the rest find it gone', async () => {
      const order = await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const processes = [t.store, await t.another(), await t.another(), await t.another()];
      const callers: Principal[] = [];
      for (const process of processes) callers.push(await callerFor(process));
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          retriedWhileBusy(() => (processes[i % 4] as AdminStore).orders.cancelOrder(order.id, callers[i % 4] as Principal)),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'cancelled')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'missing')).toHaveLength(199);
    });

    it('a cancel racing a ship from another process: each order ends shipped or cancelled, never missing', async () => {
      await t.store.orders.importOrders(Array.from({ length: 100 }, () => ({ petId: 1, quantity: 1 })));
      const other = await t.another();
      const caller = await callerFor(t.store);
      const results = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const [cancel, ship] = await Promise.all([
            retriedWhileBusy(() => t.store.orders.cancelOrder(i + 1, caller)),
            retriedWhileBusy(() => other.orders.shipOrder(i + 1)),
          ]);
          return `${cancel}/${ship}`;
        }),
      );
      for (const result of results) expect(['cancelled/not_pending', 'shipped/shipped']).toContain(result);
    });
  });
});
