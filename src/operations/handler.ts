// What an operation's handler is: typed input in, a documented answer out, with its part of the store and
// the caller.
import type { Input, OperationAnswer, OperationId } from '../contract/types.js';
import type { MessageStore, OrderStore, PetStore, Principal, Store } from '../store/store.js';

/** The one aggregate of the store each operation is given; a missing operation fails `tsc`. */
export interface StoreParts extends Record<OperationId, unknown> {
  listOrders: OrderStore;
  cancelOrder: OrderStore;
  sendMessage: MessageStore;
  getPetById: PetStore;
}

export function storePartsOf(store: Store): StoreParts {
  return { listOrders: store.orders, cancelOrder: store.orders, sendMessage: store.messages, getPetById: store.pets };
}

export interface Dependencies<Op extends OperationId = OperationId> {
  store: StoreParts[Op];
  principal: Principal;
  now: () => Date;
}

export type Handler<Op extends OperationId> = (
  input: Input<Op>,
  dependencies: Dependencies<Op>,
) => OperationAnswer<Op> | Promise<OperationAnswer<Op>>;

export type Handlers = { [Op in OperationId]: Handler<Op> };
