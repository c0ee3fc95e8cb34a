// The webhook tables' rows as both backends read them (both schemas name the columns alike), and their one
// mapping to what the seam gives: an endpoint's events are kept as one text, the types separated by spaces.
import type { ClaimedEndpoint, DisabledReason, StorePage, WebhookDelivery, WebhookEndpoint, WebhookEventType } from './webhookStore.js';

export interface EndpointRow {
  seq: number;
  id: string;
  url: string;
  events: string;
  description: string | null;
  status: WebhookEndpoint['status'];
  disabled_reason: DisabledReason | null;
  created_at: string;
  updated_at: string;
}

export function endpointOf(row: EndpointRow): WebhookEndpoint {
  // In the contract's order of fields, as its examples show them.
  return {
    id: row.id,
    url: row.url,
    events: row.events.split(' ') as WebhookEventType[],
    ...(row.description !== null && { description: row.description }),
    status: row.status,
    ...(row.disabled_reason !== null && { disabledReason: row.disabled_reason }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface AttemptRow {
  seq: number;
  event_id: string;
  event_type: WebhookEventType;
  attempt: number;
  outcome: WebhookDelivery['outcome'];
  status_code: number | null;
  error: string | null;
  attempted_at: string;
}

export function deliveryOf(row: AttemptRow): WebhookDelivery {
  return {
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    outcome: row.outcome,
    ...(row.status_code !== null && { statusCode: row.status_code }),
    ...(row.error !== null && { error: row.error }),
    attemptedAt: row.attempted_at,
  };
}

/** The page of `limit` rows read with one more, which tells whether a next page starts after the last. */
export function pageOf<Row extends { seq: number }, T>(rows: readonly Row[], limit: number, map: (row: Row) => T): StorePage<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return rows.length > limit && last ? { items: items.map(map), next: last.seq } : { items: items.map(map) };
}

/** An event's `data` and, for a message's event, the message's text, kept apart (the migrations say why). */
export interface EventDataRow {
  data: string;
  /** Text on SQLite, the UTF-8 bytes on PostgreSQL; null for an order's event. */
  message: string | Buffer | null;
}

/** The event's `data` as v2 answers the order or the message: a message's text in its place, after the id. */
export function eventDataOf({ data, message }: EventDataRow): Record<string, unknown> {
  const parsed = JSON.parse(data) as Record<string, unknown>;
  if (message === null) return parsed;
  const { id, ...rest } = parsed;
  return { id, message: typeof message === 'string' ? message : message.toString('utf8'), ...rest };
}

/** An endpoint with an event to send, as a claim reads it. */
export interface ClaimableRow {
  seq: number;
  id: string;
  url: string;
  account_id: number;
  events: string;
  sent_xact: number | string;
  sent_seq: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  attempts: number;
  failing_since: string | null;
}

/** The event an endpoint is to be sent next; `queued_at` when a replay queued it. */
export interface HeadEventRow extends EventDataRow {
  seq: number;
  xact: number | string;
  id: string;
  type: WebhookEventType;
  created_at: string;
  queued_at: string | null;
  traceparent: string | null;
}

/** The claimed endpoint (its `attempts` counting this claim's) and its next event, with the secrets live at `now`. */
export function claimedEndpointOf(row: ClaimableRow, head: HeadEventRow, now: string): ClaimedEndpoint {
  const previousLive = row.previous_secret !== null && (row.previous_secret_expires_at ?? '') > now;
  return {
    seq: Number(row.seq),
    id: row.id,
    url: row.url,
    secrets: previousLive ? [row.secret, row.previous_secret as string] : [row.secret],
    attempt: row.attempts,
    ...(row.failing_since !== null && { failingSince: row.failing_since }),
    event: {
      seq: Number(head.seq),
      xact: String(head.xact),
      id: head.id,
      type: head.type,
      data: eventDataOf(head),
      createdAt: head.created_at,
      ...(head.queued_at !== null && { replayedAt: head.queued_at }),
      ...(head.traceparent !== null && { traceparent: head.traceparent }),
    },
  };
}
