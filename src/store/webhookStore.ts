// The seam's part for the accounts' own webhook endpoints (API v2): the endpoints an account registers,
// their secrets, the attempts made to each, and the replays asked for. The events they receive are written
// by the store itself, with the changes they report (see docs/design.md, "Events for clients").
import type { components as componentsV2 } from '../../generated/openapi.v2.js';

export type WebhookEndpoint = componentsV2['schemas']['WebhookEndpoint'];
export type WebhookEventType = componentsV2['schemas']['WebhookEventType'];
export type WebhookDelivery = componentsV2['schemas']['WebhookDelivery'];
export type DisabledReason = NonNullable<WebhookEndpoint['disabledReason']>;

/** Every event type, in the contract's order; a type the contract gains and this list lacks fails `tsc`. */
export const WEBHOOK_EVENT_TYPES = [
  'order.cancelled',
  'order.shipped',
  'message.delivered',
  'message.failed',
] as const satisfies readonly WebhookEventType[];
type Unlisted = Exclude<WebhookEventType, (typeof WEBHOOK_EVENT_TYPES)[number]>;
export const EVERY_EVENT_TYPE_LISTED: Unlisted extends never ? true : never = true;

/** `types` without repeats, in WEBHOOK_EVENT_TYPES' order: how an endpoint's events are kept and answered. */
export function inListOrder(types: readonly WebhookEventType[]): WebhookEventType[] {
  return WEBHOOK_EVENT_TYPES.filter((type) => types.includes(type));
}

/** An endpoint to register, for the caller's account; its id, secret and time are the caller's to make. */
export interface NewWebhookEndpoint {
  id: string;
  url: string;
  events: readonly WebhookEventType[];
  description?: string;
  secret: string;
  createdAt: string;
}

/** What an update changes: each field given, and no other; `description: ''` removes it. */
export interface WebhookEndpointChange {
  url?: string;
  events?: readonly WebhookEventType[];
  description?: string;
  status?: 'enabled' | 'disabled';
}

/** A page of a list that goes on from a position the store keeps (`next`: where the next page starts). */
export interface StorePage<T> {
  items: T[];
  next?: number;
}

/** A new secret and the previous one's end (ISO 8601 instants). */
export interface SecretRotation {
  secret: string;
  at: string;
  previousExpiresAt: string;
}

/** A replay, asked for `at`, of the events of [since, until), at most `limit` of them, the oldest first. */
export interface ReplayRange {
  since: string;
  until: string;
  limit: number;
  at: string;
}

export interface ReplayOutcome {
  queued: number;
  /** When more remained: the time of the first one left. */
  nextSince?: string;
}

/**
 * The account's endpoints. Every call names the caller's account, and an endpoint of another account is
 * not found, as an unknown one is (`undefined`).
 */
export interface WebhookStore {
  /** The endpoint, enabled, receiving the events committed after it; `too_many` once the account has `max`. */
  createEndpoint(accountId: number, endpoint: NewWebhookEndpoint, max: number): Promise<WebhookEndpoint | 'too_many'>;
  /** The account's endpoints, oldest first: `limit` of them after the position `after` (0: from the first). */
  listEndpoints(accountId: number, after: number, limit: number): Promise<StorePage<WebhookEndpoint>>;
  findEndpoint(accountId: number, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Enabling an endpoint makes it receive the events committed from then on. */
  updateEndpoint(
    accountId: number,
    endpointId: string,
    change: WebhookEndpointChange,
    at: string,
  ): Promise<WebhookEndpoint | undefined>;
  /** Deletes the endpoint, its secrets, attempts and replays; false if there was none. */
  deleteEndpoint(accountId: number, endpointId: string): Promise<boolean>;
  /** The new secret signs from now on, the one before until `previousExpiresAt`; an older one no more. */
  rotateSecret(accountId: number, endpointId: string, rotation: SecretRotation): Promise<boolean>;
  /** The endpoint's attempts, newest first: `limit` of them before the position `before` (0: the newest). */
  listDeliveries(
    accountId: number,
    endpointId: string,
    before: number,
    limit: number,
  ): Promise<StorePage<WebhookDelivery> | undefined>;
  /** Queues again the endpoint's events of the range that it has no delivered attempt for. */
  replayEvents(accountId: number, endpointId: string, range: ReplayRange): Promise<ReplayOutcome | undefined>;
}

/** An attempt as the operator's tools (and `init --examples`) record it outside a delivery. */
export interface RecordedAttempt extends WebhookDelivery {
  endpointId: string;
}

export interface WebhookAdmin {
  /** Records an attempt that was made (init --examples writes the contract's). */
  recordAttempt(attempt: RecordedAttempt): Promise<void>;
}

/** A claim: up to `limit` endpoints with an event to send at `now`, leased to `owner` until `leaseUntil`. */
export interface EndpointClaim {
  owner: string;
  now: string;
  leaseUntil: string;
  limit: number;
}

/** An event as it is sent: its place in the endpoint's order, and what the body carries. */
export interface ClaimedEvent {
  /** Its place: events are sent in (xact, seq) order (the migrations say why). */
  seq: number;
  xact: string;
  id: string;
  type: WebhookEventType;
  /** The order or the message as v2 answers it. */
  data: Record<string, unknown>;
  createdAt: string;
  /** A replay's: when it was queued, from which its retries count their age. */
  replayedAt?: string;
  /** The W3C `traceparent` of the request that made the change (a cancel, a message sent), if any. */
  traceparent?: string;
}

/** An endpoint claimed with the one event it is to be sent next. */
export interface ClaimedEndpoint {
  seq: number;
  id: string;
  url: string;
  /** The secrets that sign now: its own, and the one before a rotation until that one's end. */
  secrets: string[];
  /** This attempt's number for the event, from 1: each claim counts one. */
  attempt: number;
  /** When the attempts to it began to fail, all of them since; absent while they succeed. */
  failingSince?: string;
  event: ClaimedEvent;
}

/** What came of an endpoint's claimed event; applied only while `owner` still holds the endpoint's claim. */
export interface EventSettlement {
  endpointSeq: number;
  event: Pick<ClaimedEvent, 'seq' | 'xact' | 'replayedAt'>;
  /** The attempt made, if one was: it is listed among the endpoint's deliveries. */
  attempt?: WebhookDelivery;
  /** Done with: delivered, or given up. Otherwise it stays the endpoint's next. */
  passed: boolean;
  /** When the endpoint is due again, if not at once. */
  dueAt?: string;
  failingSince: string | null;
  /** The endpoint receives nothing more until its client enables it again. */
  disable?: Exclude<DisabledReason, 'client'>;
}

/** The endpoints' events as the servers deliver them: one process at a time per endpoint, in order. */
export interface EventDeliveryStore {
  /**
   * Endpoints that are enabled, not held by a claim (or whose lease ended), due, and have an event to send:
   * a replay first, then the next event after its position, of its types and of its account or of none.
   */
  claimEndpoints(claim: EndpointClaim): Promise<ClaimedEndpoint[]>;
  /** Records the settlement, the claim released, if `owner` still holds the endpoint; else nothing. */
  settleEndpoint(owner: string, settlement: EventSettlement): Promise<void>;
  /** Deletes up to `limit` events, and as many attempts, made before `before`; answers how many rows. */
  deleteEventsBefore(before: string, limit: number): Promise<number>;
}

export type EndpointStatus = WebhookEndpoint['status'];
/** Every status, in the contract's order; one the contract gains and this list lacks fails `tsc`. */
export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const satisfies readonly EndpointStatus[];
type UnlistedStatus = Exclude<EndpointStatus, (typeof ENDPOINT_STATUSES)[number]>;
export const EVERY_ENDPOINT_STATUS_LISTED: UnlistedStatus extends never ? true : never = true;

export interface PendingEvents {
  count: number;
  oldestAt?: string;
}

/** What the metrics read of the endpoints (telemetryStore.ts gives it on). */
export interface EventCounts {
  /** The accounts' webhook endpoints by status. */
  countEndpointsByStatus(): Promise<Record<EndpointStatus, number>>;
  /** Events still to send to an enabled endpoint (one per endpoint and event), and when the oldest happened. */
  pendingEvents(): Promise<PendingEvents>;
}
