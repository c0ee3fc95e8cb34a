// An endpoint's attempts, newest first, and the replay of the events it missed: both of the caller's
// account's endpoints only, another's not found as an unknown one is.
import { apiError } from '../../contract/errorBody.js';
import { instantAtOrAfter } from '../../contract/instants.js';
import type { Handler } from '../handler.js';
import { nextPageLink } from './pageLink.js';
import { readPosition, writePosition } from './positionCursor.js';
import { DEFAULT_LIMIT, endpointNotFound } from './webhookEndpoints.js';

/** The most events one replay queues. */
export const REPLAY_LIMIT = 10_000;

export const listWebhookDeliveries: Handler<'listWebhookDeliveries', 'v2'> = async (
  { path: { endpointId }, query = {} },
  { store, principal },
) => {
  const before = readPosition('deliveries', query.cursor);
  if (typeof before !== 'number') return before;
  const page = await store.webhooks.listDeliveries(principal.accountId, endpointId, before, query.limit ?? DEFAULT_LIMIT);
  if (page === undefined) return endpointNotFound(endpointId);
  if (page.next === undefined) return { status: 200, body: { data: page.items, hasMore: false } };
  const nextCursor = writePosition('deliveries', page.next);
  return {
    status: 200,
    body: { data: page.items, hasMore: true, nextCursor },
    headers: { Link: nextPageLink(`/v2/webhook-endpoints/${endpointId}/deliveries`, query, nextCursor) },
  };
};

/**
 * A `since` older than the events kept starts at the oldest kept: the range is what the store still holds.
 * Instants are compared as the store keeps them (instants.ts), so a bound in any zone means what it says.
 */
export const replayWebhookEvents: Handler<'replayWebhookEvents', 'v2'> = async (
  { path: { endpointId }, body },
  { store, principal, now },
) => {
  const at = now();
  const since = instantAtOrAfter(body.since);
  const until = body.until === undefined ? at.toISOString() : instantAtOrAfter(body.until);
  if (since === undefined) return unreadable('since');
  if (until === undefined) return unreadable('until');
  if (until < since) return apiError('invalid_request', 'until: must not be before since');
  const oldestKept = new Date(at.getTime() - store.retentionMs).toISOString();
  const outcome = await store.webhooks.replayEvents(principal.accountId, endpointId, {
    since: since < oldestKept ? oldestKept : since,
    until,
    limit: REPLAY_LIMIT,
    at: at.toISOString(),
  });
  return outcome === undefined ? endpointNotFound(endpointId) : { status: 202, body: outcome };
};

function unreadable(bound: string) {
  return apiError('invalid_request', `${bound}: must be a date-time with a time zone, like 2026-12-01T00:00:00Z`);
}
