// Each server process delivers the accounts' events through one event dispatcher. It claims endpoints that
// have an event to send (the store keeps each endpoint to one process at a time, and gives it its next
// event in order), sends each its event, and records what came of it, which frees the endpoint for its next
// claim. It claims every POLL_MS, when a run ends, and when a retry it set falls due.
//
// Why not the message dispatcher with the operator's endpoint as one more destination: the two orders
// differ. An account's messages are sent in order while the endpoint answers, but one waiting for a retry
// holds back none accepted after it (the contracts promise it); an endpoint's events wait for the one
// before, so that they arrive in the order they happened. See docs/design.md, "Events for clients".
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { type SpanRecorder, spanTime } from '../spans.js';
import type { ClaimedEndpoint, EventDeliveryStore, EventSettlement } from '../store/store.js';
import { childSpanOf, isSampled, type TraceContext, type TraceFields, traceFields, traceparentOf } from '../traceContext.js';
import { type AddressPolicy, hostOf, refusalOf } from './addresses.js';
import { type Attempt, attemptSpan, type WebhookSender } from './endpoint.js';
import { type EventPolicy, givenUpBeforeSending, settlementAfter } from './eventPolicy.js';
import type { DeliveryLog, EventDeliveryObserver } from './ports.js';
import { parseSecret } from './signature.js';

/** How often the endpoints are looked at without a run ending. */
export const POLL_MS = 1_000;
/** Endpoints claimed at once, each with one event, and attempts in flight at once, by one process. */
const CLAIM_LIMIT = 32;
/** Kept between the end of an attempt (its time-out) and the end of its lease: see dispatcher.ts. */
const LEASE_MARGIN_MS = 5_000;
/** A timer may fire a little before the wall clock reaches its time: the claim must find the retry due. */
const RETRY_WAKE_LATE_MS = 5;

export interface EventDispatcherOptions {
  store: EventDeliveryStore;
  sender: WebhookSender;
  addresses: AddressPolicy;
  policy: EventPolicy;
  timeoutMs: number;
  observer: EventDeliveryObserver;
  log: DeliveryLog;
  /** Each attempt sends its `traceparent` (WEBHOOK_TRACE_CONTEXT): the operator's trace ids, to the client. */
  sendTraceparent: boolean;
  /** Where each attempt's span goes while spans are exported. */
  spans?: SpanRecorder | undefined;
  now?: () => Date;
  random?: () => number;
}

export class EventDispatcher {
  readonly #options: Required<Omit<EventDispatcherOptions, 'spans'>> & Pick<EventDispatcherOptions, 'spans'>;
  readonly #owner = randomUUID();
  readonly #leaseMs: number;
  readonly #runs = new Set<Promise<void>>();
  #claiming: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #claimFailing = false;
  #poll: NodeJS.Timeout | undefined;
  #retry: { at: number; timer: NodeJS.Timeout } | undefined;

  constructor(options: EventDispatcherOptions) {
    this.#options = { now: () => new Date(), random: Math.random, ...options };
    this.#leaseMs = 2 * options.timeoutMs + LEASE_MARGIN_MS;
  }

  start(): void {
    this.#poll = setInterval(() => this.wake(), POLL_MS);
    this.#poll.unref();
    this.wake();
  }

  /** Claims now, or once the claim under way is done. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#claiming) this.#again = true;
    else {
      this.#claiming = this.#claim().finally(() => {
        this.#claiming = undefined;
        if (this.#again) this.wake();
      });
    }
  }

  /** No more claims; the attempts in flight end (each by its time-out) and are recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#retry?.timer);
    await this.#claiming;
    while (this.#runs.size > 0) await Promise.all(this.#runs);
  }

  async #claim(): Promise<void> {
    this.#again = false;
    const limit = CLAIM_LIMIT - this.#runs.size;
    if (limit <= 0) return;
    try {
      const now = this.#options.now();
      const claimed = await this.#options.store.claimEndpoints({
        owner: this.#owner,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + this.#leaseMs).toISOString(),
        limit,
      });
      this.#claimFailing = false;
      for (const endpoint of claimed) this.#start(endpoint);
      // A full claim may have left endpoints waiting: look again once a run ends.
      if (claimed.length === limit) this.#again = true;
    } catch (error) {
      // Said once, until a claim works again: the poll tries again.
      if (!this.#claimFailing) this.#options.log.error({ err: error }, 'could not claim webhook events to deliver; trying again');
      this.#claimFailing = true;
    }
  }

  #start(endpoint: ClaimedEndpoint): void {
    const run = this.#deliver(endpoint).finally(() => {
      this.#runs.delete(run);
      this.wake();
    });
    this.#runs.add(run);
  }

  /** At most CLAIM_LIMIT at once: a claim asks for no more endpoints than runs are free. */
  async #deliver(endpoint: ClaimedEndpoint): Promise<void> {
    await this.#record(endpoint, await this.#attempt(endpoint));
  }

  async #attempt(endpoint: ClaimedEndpoint): Promise<EventSettlement> {
    const { sender, policy, observer, now, random, log, sendTraceparent } = this.#options;
    const { event } = endpoint;
    // The attempt is a span of the trace of the change the event reports, a child of its request's span.
    const span = childSpanOf(event.traceparent);
    const givenUp = givenUpBeforeSending(endpoint, now(), policy);
    if (givenUp) {
      log.warn(fieldsOf(endpoint, traceFields(span), 'no attempt is left'), 'webhook event given up');
      return givenUp;
    }
    const body = JSON.stringify({ type: event.type, timestamp: event.createdAt, data: event.data });
    const url = new URL(endpoint.url);
    const keys = keysOf(endpoint);
    const started = spanTime();
    const traceparent = sendTraceparent ? traceparentOf(span) : undefined;
    const attempt =
      this.#refusedAddress(url) ??
      (keys === undefined ? UNREADABLE_SECRET : await sender.post(url, keys, event.id, body, now(), traceparent));
    this.#recordSpan(span, started, url, endpoint, attempt);
    const at = now();
    observer.attempted(event.type, attempt.outcome);
    if (attempt.delivered) observer.delivered((at.getTime() - Date.parse(event.createdAt)) / 1000);
    const settlement = settlementAfter(endpoint, attempt, at, policy, random);
    if (!attempt.delivered) this.#failed(endpoint, traceFields(span), attempt, settlement);
    return settlement;
  }

  /** The attempt as an HTTP client span, while spans are exported: the endpoint's host, never its path. */
  #recordSpan(span: TraceContext, start: number, url: URL, endpoint: ClaimedEndpoint, attempt: Attempt): void {
    const { spans } = this.#options;
    if (spans === undefined || !isSampled(span)) return;
    const { id, event } = endpoint;
    const own = { 'store_orders.endpoint_id': id, 'store_orders.event_id': event.id, 'store_orders.event_type': event.type, 'store_orders.attempt': endpoint.attempt };
    spans.record(attemptSpan(span, start, spanTime(), url, attempt, own));
  }

  /** An address written in the URL is checked here: a name is checked by the sender's lookup as it connects. */
  #refusedAddress(url: URL): Attempt | undefined {
    const host = hostOf(url);
    const refusal = isIP(host) === 0 ? undefined : refusalOf(host, this.#options.addresses);
    return refusal === undefined ? undefined : { delivered: false, outcome: 'connection_error', reason: refusal };
  }

  #failed(endpoint: ClaimedEndpoint, traced: TraceFields, attempt: Attempt, settlement: EventSettlement): void {
    const reason = attempt.delivered ? '' : attempt.reason;
    const fields = fieldsOf(endpoint, traced, reason);
    const { log } = this.#options;
    if (settlement.disable) log.warn({ ...fields, disabled: settlement.disable }, 'webhook delivery failed; the endpoint is disabled');
    else if (settlement.dueAt) {
      log.warn({ ...fields, retryAt: settlement.dueAt }, 'webhook delivery failed; it will be tried again');
      this.#wakeAt(Date.parse(settlement.dueAt));
    } else log.warn({ ...fields, failed: true }, 'webhook delivery failed; no attempt is left');
  }

  /** Recorded, tried again until it is: an endpoint whose settlement is lost is claimed again after its lease. */
  async #record(endpoint: ClaimedEndpoint, settlement: EventSettlement): Promise<void> {
    for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, 5_000)) {
      try {
        await this.#options.store.settleEndpoint(this.#owner, settlement);
        return;
      } catch (error) {
        this.#options.log.error({ err: error, endpointId: endpoint.id }, 'could not record what came of a webhook delivery; trying again');
        if (this.#stopped) return;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  /** A wake when the earliest retry this process set falls due. */
  #wakeAt(at: number): void {
    if (this.#stopped || (this.#retry && this.#retry.at <= at)) return;
    clearTimeout(this.#retry?.timer);
    const timer = setTimeout(() => {
      this.#retry = undefined;
      this.wake();
    }, Math.max(0, at - Date.now()) + RETRY_WAKE_LATE_MS);
    timer.unref();
    this.#retry = { at, timer };
  }
}

/** The endpoint's secrets as keys; undefined if one is not a secret the server makes (written past the API). */
function keysOf({ secrets }: ClaimedEndpoint): Buffer[] | undefined {
  try {
    return secrets.map((secret) => parseSecret(secret, 'the secret'));
  } catch {
    return undefined;
  }
}

const UNREADABLE_SECRET: Attempt = { delivered: false, outcome: 'connection_error', reason: 'its secret cannot sign' };

/** What a log line says of an attempt: the endpoint's and the event's ids, never its URL, body or secret. */
function fieldsOf({ id, attempt, event }: ClaimedEndpoint, traced: TraceFields, reason: string) {
  return { endpointId: id, eventId: event.id, eventType: event.type, attempt, ...traced, reason };
}
