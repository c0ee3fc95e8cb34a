// The orders as the store gives them (compose.ts): ids beyond what a number holds exactly name nothing, and
// a caller's cancel is checked against the caller's key by the repository's own statement.
import type { Awaitable } from '../awaitable.js';
import type { KeyRepository, OrderRepository } from './backend.js';
import type { Guard } from './guard.js';
import type { CancelOutcome, OrderAdmin, OrderStore, ShipOutcome } from './orderStore.js';
import { isStoreId, type OrderStatus, type Principal, UNAUTHORIZED, type Unauthorized } from './vocabulary.js';

const MISSING = 'missing' as const;

export function orderFront(orders: OrderRepository, keys: KeyRepository, guard: Guard): OrderStore & OrderAdmin {
  return {
    listOrders: (caller) => guard.read(() => orders.list(caller.keyDigest)),
    listOrderPage: (query) => guard.read(() => orders.page(query)),
    cancelOrder: (orderId, caller, traceparent) => {
      // No statement runs for an id that names nothing: the key is looked up instead, so that a revoked
      // key learns nothing from the id.
      if (!isStoreId(orderId)) return guard.call(() => afterKeyCheck(keys, caller, MISSING));
      return guard.call(() => orders.move(orderId, 'pending', 'cancelled', cancelOutcome, caller.keyDigest, traceparent));
    },
    addOrder: (order) => guard.call(() => orders.add(order)),
    importOrders: (all) => guard.call(() => orders.addAll(all)),
    shipOrder: (orderId) => {
      if (!isStoreId(orderId)) return Promise.resolve(MISSING);
      return guard.call(() => orders.move(orderId, 'pending', 'shipped', shipOutcome));
    },
    findOrder: (orderId) => (isStoreId(orderId) ? guard.call(() => orders.find(orderId)) : Promise.resolve(undefined)),
    listAllOrders: (filter) => guard.call(() => orders.listAll(filter)),
  };
}

/** `outcome` if the caller's key is active, else UNAUTHORIZED. */
function afterKeyCheck<T>(keys: KeyRepository, caller: Principal, outcome: T): Awaitable<T | Unauthorized> {
  const key = keys.findActiveKey(caller.keyDigest);
  if (key instanceof Promise) return key.then((active) => (active ? outcome : UNAUTHORIZED));
  return key ? outcome : UNAUTHORIZED;
}

function cancelOutcome(found: OrderStatus | Unauthorized | undefined): CancelOutcome | Unauthorized {
  if (found === 'pending') return 'cancelled';
  if (found === UNAUTHORIZED) return found;
  return found === 'shipped' ? 'shipped' : MISSING;
}

/** The operator's move: no key is checked. */
function shipOutcome(found: OrderStatus | Unauthorized | undefined): ShipOutcome {
  if (found === 'pending') return 'shipped';
  return found === undefined || found === UNAUTHORIZED ? MISSING : 'not_pending';
}
