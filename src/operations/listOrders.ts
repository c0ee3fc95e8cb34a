// GET /store/orders: every order that is not cancelled, by id. Conditional requests are handled in http/.
import { andThen } from '../awaitable.js';
import { streamedArray } from '../contract/streamedArray.js';
import { KEY_REQUIRED } from '../contract/unauthorized.js';
import { type OrderList, UNAUTHORIZED, type Unauthorized } from '../store/store.js';
import { checksKeyInStore, type Handler } from './handler.js';

export const listOrders: Handler<'listOrders'> = checksKeyInStore((_input, { store, principal }) =>
  andThen(store.listOrders(principal), (list: OrderList | Unauthorized) => {
    if (list === UNAUTHORIZED) return KEY_REQUIRED;
    return { status: 200 as const, body: 'orders' in list ? list.orders : streamedArray(list.version, list.rows) };
  }),
);
