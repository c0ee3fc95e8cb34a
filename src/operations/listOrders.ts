// GET /store/orders: every order that is not cancelled, by id. Conditional requests are handled in http/.
import type { Handler } from './handler.js';

export const listOrders: Handler<'listOrders'> = (_input, { store }) => ({
  status: 200,
  body: store.listOrders(),
});
