// What an operation's handler is: typed input in, a documented answer out, with the store and the caller.
import type { Input, OperationAnswer, OperationId } from '../contract/types.js';
import type { Principal, Store } from '../store/store.js';

export interface Dependencies {
  store: Store;
  principal: Principal;
  now: () => Date;
}

export type Handler<Op extends OperationId> = (
  input: Input<Op>,
  dependencies: Dependencies,
) => OperationAnswer<Op> | Promise<OperationAnswer<Op>>;

export type Handlers = { [Op in OperationId]: Handler<Op> };
