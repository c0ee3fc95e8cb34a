// cancelOrder's rules, the same in /v1 and /v2, as either SDK's cancelOrder meets them.
import { expect } from 'vitest';
import type { AdminStore } from '../../../src/store/store.js';

type Cancel = (orderId: number) => Promise<{ error?: unknown; response: Response }>;

/** A pending order cancels (204), then is 404; a shipped one is 409; order 0 is 400. Returns the cancelled id. */
export async function cancelsAsTheContractSays(store: AdminStore, cancel: Cancel): Promise<number> {
  const pending = await store.orders.addOrder({ petId: 1, quantity: 1 });
  const shipped = await store.orders.addOrder({ petId: 2, quantity: 1 });
  await store.orders.shipOrder(shipped.id);

  expect((await cancel(pending.id)).response.status).toBe(204);
  const again = await cancel(pending.id);
  expect(again.error).toEqual({ code: 'order_not_found', message: `No order ${pending.id}`, status: 404 });
  const conflict = await cancel(shipped.id);
  expect(conflict.error).toMatchObject({ code: 'order_already_shipped', status: 409 });
  const outOfRange = await cancel(0);
  expect(outOfRange.error).toMatchObject({ code: 'invalid_request', status: 400 });
  return pending.id;
}
