// The operation tables: for each version of the API, one handler per operationId of its contract; a
// missing or extra one fails `tsc`.
import type { Handlers, HandlersByVersion } from './handler.js';
import { cancelOrder } from './cancelOrder.js';
import { getPetById } from './getPetById.js';
import { listOrders } from './listOrders.js';
import { sendMessage } from './sendMessage.js';
import { handlers as handlersV2 } from './v2/index.js';

export const handlers: Handlers = { listOrders, cancelOrder, sendMessage, getPetById };

export const handlersByVersion: HandlersByVersion = { v1: handlers, v2: handlersV2 };
