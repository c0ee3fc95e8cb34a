// The strict-server types: these lines must fail `tsc` (npm run typecheck), or @ts-expect-error itself fails.
import { describe, expect, it } from 'vitest';
import { apiError } from '../../src/contract/errorBody.js';
import type { Handler } from '../../src/contract/types.js';

describe('handler types derived from generated/', () => {
  it('accept the statuses and bodies the contract documents', async () => {
    const cancel: Handler<'cancelOrder'> = () => ({ status: 204 });
    const conflict: Handler<'cancelOrder'> = () => apiError(409, 'order_already_shipped', 'shipped');
    expect(
      cancel(
        { path: { orderId: 1 }, pathText: { orderId: '1' }, body: undefined, headers: undefined },
        {} as never,
      ),
    ).toEqual({ status: 204 });
    expect(
      await conflict(
        { path: { orderId: 1 }, pathText: { orderId: '1' }, body: undefined, headers: undefined },
        {} as never,
      ),
    ).toMatchObject({ status: 409 });
  });

  it('refuse statuses and bodies the contract does not document', () => {
    // @ts-expect-error cancelOrder documents no 200.
    const undocumentedStatus: Handler<'cancelOrder'> = () => ({ status: 200, body: [] });
    // @ts-expect-error 204 has no body.
    const bodyOn204: Handler<'cancelOrder'> = () => ({ status: 204, body: { id: 1 } });
    // @ts-expect-error listOrders answers 200 with Order[], not one Order.
    const wrongBody: Handler<'listOrders'> = () => ({ status: 200, body: { id: 1 } });
    // @ts-expect-error a handler may not choose 500: unexpected errors are the server's `default`.
    const serverError: Handler<'listOrders'> = () => apiError(500, 'internal_error', 'no');
    expect([undocumentedStatus, bodyOn204, wrongBody, serverError]).toHaveLength(4);
  });
});
