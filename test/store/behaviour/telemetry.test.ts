// What the telemetry reads and writes through the store, on every backend: the orders by status, the
// deprecated calls per account, and readiness.
import { describe, expect, it } from 'vitest';
import { onEveryBackend } from '../../support/storeSuite.js';
import { callerFor } from '../../support/caller.js';

onEveryBackend('the $kind store', (t) => {
  describe('telemetry', () => {
    it('counts orders by status', async () => {
      await t.store.orders.importOrders([{ petId: 1 }, { petId: 2 }, { petId: 3, status: 'shipped' }]);
      await t.store.orders.cancelOrder(1, await callerFor(t.store));
      expect(await t.store.telemetry.countOrdersByStatus()).toStrictEqual({ pending: 1, shipped: 1, cancelled: 1 });
    });

    it('adds recorded calls to those already there, keeping the first and the last', async () => {
      const account = await t.store.keys.createAccount('acme');
      const calls = (firstCallAt: string, lastCallAt: string, count: number) => [
        { operationId: 'getPetById', accountId: account.id, firstCallAt, lastCallAt, count },
      ];
      await t.store.telemetry.recordDeprecatedCalls(calls('2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', 2));
      await t.store.telemetry.recordDeprecatedCalls(calls('2026-01-01T00:00:00.000Z', '2026-01-02T12:00:00.000Z', 3));
      await t.store.telemetry.recordDeprecatedCalls([]);
      expect(await t.store.telemetry.listDeprecatedCalls()).toStrictEqual([
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
      expect(await t.store.isReady()).toBe(true);
    });
  });
});
