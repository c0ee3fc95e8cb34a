// The schema, on every backend: a database an earlier release left is brought up to date with what it
// holds, rewritten where this release keeps less than that release did.
import { describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../support/storeBackends.js';
import { onEveryBackend } from '../../support/storeSuite.js';

onEveryBackend('the $kind store', (t) => {
  describe('schema', () => {
    it('moves ship dates an earlier version stored outside years 0000 to 9999 in UTC to the nearest it keeps, and stores no other', async () => {
      // The database as the release before that migration left it, with the dates its CLI could store.
      const older = await scratchDatabase(t.backend.kind, { schema: 'empty' });
      try {
        await older.writeOlderSchema(t.backend.migrations.shipDateRange - 1);
        const at = '2026-01-01T00:00:00.000Z';
        await older.execute(`INSERT INTO orders (ship_date, complete, status, created_at, updated_at) VALUES
          ('2026-12-01T00:00:00.000Z', false, 'pending', '${at}', '${at}'),
          (NULL, false, 'pending', '${at}', '${at}'),
          ('+010000-01-01T22:59:00.000Z', false, 'pending', '${at}', '${at}'),
          ('-000001-12-31T23:00:00.000Z', false, 'shipped', '${at}', '${at}');`);
        const upgraded = await older.open();
        try {
          const [first, second, late, early] = await upgraded.orders.listAllOrders();
          expect([first?.shipDate, second?.shipDate, late?.shipDate, early?.shipDate]).toEqual([
            '2026-12-01T00:00:00.000Z',
            undefined,
            '9999-12-31T23:59:59.999Z',
            '0000-01-01T00:00:00.000Z',
          ]);
          expect(late?.updatedAt).not.toBe(at);
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
          await expect(older.execute(`UPDATE orders SET ship_date = '+010000-01-01T00:00:00.000Z'`)).rejects.toThrow();
        } finally {
          await upgraded.close();
        }
      } finally {
        await older.drop();
      }
    });
  });
});
