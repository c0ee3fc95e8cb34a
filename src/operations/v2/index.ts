// API v2's operation table: one handler per operationId of openapi.v2.yaml; a missing or extra one fails
// `tsc`. cancelOrder and sendMessage keep v1's rules, and v1's handlers, typed against v2's contract here.
import type { Handlers } from '../handler.js';
import { cancelOrder } from '../cancelOrder.js';
import { sendMessage } from '../sendMessage.js';
import { getMessage } from './getMessage.js';
import { listOrders } from './listOrders.js';
import { listWebhookDeliveries, replayWebhookEvents } from './webhookDeliveries.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from './webhookEndpoints.js';

export const handlers: Handlers<'v2'> = {
  listOrders,
  cancelOrder,
  sendMessage,
  getMessage,
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookEndpointSecret,
  listWebhookDeliveries,
  replayWebhookEvents,
};
