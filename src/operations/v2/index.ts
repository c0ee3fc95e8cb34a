// API v2's operation table: one handler per operationId of openapi.v2.yaml; a missing or extra one fails
// `tsc`. cancelOrder and sendMessage keep v1's rules, and v1's handlers, typed against v2's contract here.
import type { Handlers, KeyCheckedByStore } from '../handler.js';
import { cancelOrder } from '../cancelOrder.js';
import { sendMessage } from '../sendMessage.js';
import { getMessage } from './getMessage.js';
import { listOrders } from './listOrders.js';

export const handlers: Handlers<'v2'> = { listOrders, cancelOrder, sendMessage, getMessage };

/**
 * listOrders answers some filters and cursors without a store call, and getMessage's read takes the
 * account, not the key: their keys are looked up first.
 */
export const keyCheckedByStore: KeyCheckedByStore['v2'] = new Set(['cancelOrder', 'sendMessage']);
