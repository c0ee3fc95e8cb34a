// DELETE /store/orders/{orderId}, in v1 and v2: a pending order is cancelled; a shipped one is left alone.

import { apiError } from '../contract/errorBody.js';
import { KEY_REQUIRED } from '../contract/unauthorized.js';
import { checksKeyInStore, type SharedHandler } from './handler.js';

export const cancelOrder: SharedHandler<'cancelOrder'> = checksKeyInStore(async ({ path: { orderId }, pathText }, { store, principal, traceparent }) => {
  switch (await store.cancelOrder(orderId, principal, traceparent())) {
    case 'cancelled':
      return { status: 204 };
    case 'shipped':
      return apiError('order_already_shipped',
        `Order ${pathText.orderId} has already shipped and cannot be cancelled`,
      );
    case 'missing':
      return apiError('order_not_found', `No order ${pathText.orderId}`);
    case 'unauthorized':
      return KEY_REQUIRED;
  }
});
