// The operation tables: for each version of the API, one handler per operationId of its contract; a
// missing or extra one fails `tsc`.
import type { Handlers, HandlersByVersion, KeyCheckedByStore } from './handler.js';
import { cancelOrder } from './cancelOrder.js';
import { getPetById } from './getPetById.js';
import { listOrders } from './listOrders.js';
import { sendMessage } from './sendMessage.js';
import { handlers as handlersV2, keyCheckedByStore as keyCheckedByStoreV2 } from './v2/index.js';

export const handlers: Handlers = { listOrders, cancelOrder, sendMessage, getPetById };

export const handlersByVersion: HandlersByVersion = { v1: handlers, v2: handlersV2 };

/** getPetById's store checks the key by a lookup first anyway (a deprecated read, not worth a statement). */
export const keyCheckedByStore: KeyCheckedByStore = {
  v1: new Set(['listOrders', 'cancelOrder', 'sendMessage']),
  v2: keyCheckedByStoreV2,
};
