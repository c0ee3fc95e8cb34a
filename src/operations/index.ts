// The operation table: one handler per operationId of openapi.yaml; a missing or extra one fails `tsc`.
import type { Handlers } from './handler.js';
import { cancelOrder } from './cancelOrder.js';
import { getPetById } from './getPetById.js';
import { listOrders } from './listOrders.js';
import { sendMessage } from './sendMessage.js';

export const handlers: Handlers = { listOrders, cancelOrder, sendMessage, getPetById };
