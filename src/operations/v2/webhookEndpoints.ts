// /v2/webhook-endpoints: the caller's account registers, reads, changes and deletes its own endpoints, and
// gives one a new secret. Another account's endpoint is not found, as an unknown one is. The URL is checked
// here, against the operator's rules (`checkUrl`), and again by every attempt.
import { randomCharacters } from '../../base62.js';
import { apiError } from '../../contract/errorBody.js';
import { inListOrder, type WebhookEndpointChange } from '../../store/store.js';
import type { Handler } from '../handler.js';
import { nextPageLink } from './pageLink.js';
import { readPosition, writePosition } from './positionCursor.js';

const PATH = '/v2/webhook-endpoints';
/** The contract's default `limit` of both webhook lists. */
export const DEFAULT_LIMIT = 100;
/** How long the secret before a rotation still signs. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const createWebhookEndpoint: Handler<'createWebhookEndpoint', 'v2'> = async ({ body }, { store, principal, now }) => {
  const checked = await store.checkUrl(body.url);
  if ('refused' in checked) return refusedUrl(checked.refused);
  const secret = store.newSecret();
  const { maxPerAccount } = store;
  const endpoint = await store.webhooks.createEndpoint(
    principal.accountId,
    {
      id: `we_${randomCharacters(22)}`,
      url: checked.url,
      events: inListOrder(body.events),
      ...(body.description !== undefined && { description: body.description }),
      secret,
      createdAt: now().toISOString(),
    },
    maxPerAccount,
  );
  if (endpoint === 'too_many') {
    return apiError(
      'too_many_webhook_endpoints',
      `This account already has ${maxPerAccount} webhook endpoints, as many as it may; delete one first`,
    );
  }
  return {
    status: 201,
    body: { ...endpoint, status: 'enabled', secret },
    headers: { Location: `${PATH}/${endpoint.id}` },
  };
};

export const listWebhookEndpoints: Handler<'listWebhookEndpoints', 'v2'> = async ({ query = {} }, { store, principal }) => {
  const after = readPosition('endpoints', query.cursor);
  if (typeof after !== 'number') return after;
  const page = await store.webhooks.listEndpoints(principal.accountId, after, query.limit ?? DEFAULT_LIMIT);
  if (page.next === undefined) return { status: 200, body: { data: page.items, hasMore: false } };
  const nextCursor = writePosition('endpoints', page.next);
  return {
    status: 200,
    body: { data: page.items, hasMore: true, nextCursor },
    headers: { Link: nextPageLink(PATH, query, nextCursor) },
  };
};

export const getWebhookEndpoint: Handler<'getWebhookEndpoint', 'v2'> = async ({ path: { endpointId } }, { store, principal }) => {
  const endpoint = await store.webhooks.findEndpoint(principal.accountId, endpointId);
  return endpoint === undefined ? endpointNotFound(endpointId) : { status: 200, body: endpoint };
};

export const updateWebhookEndpoint: Handler<'updateWebhookEndpoint', 'v2'> = async (
  { path: { endpointId }, body },
  { store, principal, now },
) => {
  const change: WebhookEndpointChange = {};
  if (body.url !== undefined) {
    const checked = await store.checkUrl(body.url);
    if ('refused' in checked) return refusedUrl(checked.refused);
    change.url = checked.url;
  }
  if (body.events !== undefined) change.events = inListOrder(body.events);
  if (body.description !== undefined) change.description = body.description;
  if (body.status !== undefined) change.status = body.status;
  const endpoint = await store.webhooks.updateEndpoint(principal.accountId, endpointId, change, now().toISOString());
  return endpoint === undefined ? endpointNotFound(endpointId) : { status: 200, body: endpoint };
};

export const deleteWebhookEndpoint: Handler<'deleteWebhookEndpoint', 'v2'> = async (
  { path: { endpointId } },
  { store, principal },
) => ((await store.webhooks.deleteEndpoint(principal.accountId, endpointId)) ? { status: 204 } : endpointNotFound(endpointId));

export const rotateWebhookEndpointSecret: Handler<'rotateWebhookEndpointSecret', 'v2'> = async (
  { path: { endpointId } },
  { store, principal, now },
) => {
  const at = now();
  const secret = store.newSecret();
  const previousSecretExpiresAt = new Date(at.getTime() + ROTATION_OVERLAP_MS).toISOString();
  const rotated = await store.webhooks.rotateSecret(principal.accountId, endpointId, {
    secret,
    at: at.toISOString(),
    previousExpiresAt: previousSecretExpiresAt,
  });
  return rotated ? { status: 200, body: { secret, previousSecretExpiresAt } } : endpointNotFound(endpointId);
};

export function endpointNotFound(endpointId: string) {
  return apiError('webhook_endpoint_not_found', `No webhook endpoint ${endpointId}`);
}

function refusedUrl(why: string) {
  return apiError('invalid_webhook_url', `This URL may not receive webhooks: ${why}`);
}

