// The long order list, on every backend: streamed from one snapshot, read only as fast as its reader takes
// it, and at most as many at once as allowed.
import type { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { listOf, nextTurn, onEveryBackend } from '../../support/storeSuite.js';
import { callerFor } from '../../support/caller.js';

async function readAll(stream: Readable): Promise<string[]> {
  const texts: string[] = [];
  for await (const batch of stream) texts.push(...(batch as string[]));
  return texts;
}

onEveryBackend('the $kind store', (t) => {
  describe('the long list', () => {
    const LONG = 30_000;

    beforeEach(async () => {
      await t.restart({ streamOrdersAbove: 1_000, maxStreamedLists: 2 });
      await t.store.orders.importOrders(Array.from({ length: LONG }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    });

    it('is streamed from one snapshot: every order as JSON text, in id order, whatever is written meanwhile', async () => {
      const list = await listOf(t.store);
      if (!('rows' in list)) throw new Error('expected a streamed list');
      const batches = (list.rows() as Readable)[Symbol.asyncIterator]();
      const texts = (await batches.next()).value as string[];
      // Written after the stream began: not in it.
      await t.store.orders.cancelOrder(LONG, await callerFor(t.store));
      await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      for (let next = await batches.next(); !next.done; next = await batches.next()) texts.push(...(next.value as string[]));
      expect(texts[0]).toBe('{"id":1,"petId":1,"quantity":1,"complete":false}');
      expect(texts.map((text) => (JSON.parse(text) as { id: number }).id)).toEqual(
        Array.from({ length: LONG }, (_, i) => i + 1),
      );
    });

    it('holds back the database while its reader takes nothing, in constant memory, past the socket buffers', async () => {
      // 300,000 orders, about 14 MB of JSON: more than the socket buffers between the database and us hold.
      const MORE = 270_000;
      await t.store.orders.importOrders(Array.from({ length: MORE }, () => ({ petId: 1, quantity: 1 })));
      const list = await listOf(t.store);
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
      if (t.scratch.rowsSent) {
        // The database's own count of the rows it has sent so far: far from all of them.
        const sent = await t.scratch.rowsSent();
        expect(sent).toBeLessThan((LONG + MORE) / 2);
      }
      stream.destroy();
    });

    it('streams as many lists at once as allowed, and one more once one is given back', async () => {
      const list = await listOf(t.store);
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
});
