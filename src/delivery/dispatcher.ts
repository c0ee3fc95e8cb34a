// Each server process delivers the queue through one dispatcher. It claims due messages (the store keeps
// each to one process at a time, and an account's in the order accepted), sends each account's messages in
// that order, one at a time, and records what came of each. It claims when told a message was queued in this
// process, when one of its runs ends, when a retry it set falls due, and every POLL_MS besides: for what
// other processes queued, released or left behind when they stopped.
import { randomUUID } from 'node:crypto';
import type { ClaimedMessage, DeliveryStore, Settlement } from '../store/store.js';
import { type SpanRecorder, spanTime } from '../spans.js';
import { childSpanOf, isSampled, type TraceContext, type TraceFields, traceFields, traceparentOf } from '../traceContext.js';
import { type Attempt, attemptSpan, type EndpointClient } from './endpoint.js';
import type { DeliveryLog, DeliveryObserver } from './ports.js';
import { givenUpBeforeSending, settlementAfter } from './retryPolicy.js';
import type { RetryPolicy } from './settings.js';
import { Settler } from './settler.js';
import { Slots } from './slots.js';

/** How often the queue is looked at without being told of a message. */
export const POLL_MS = 1_000;
/** Messages claimed at once, and held (claimed and not yet settled) at most by one process. */
const CLAIM_LIMIT = 64;
const MAX_HELD = 256;
/** Attempts in flight at once, from one process. */
export const CONCURRENT_ATTEMPTS = 32;
/**
 * Kept between the end of an attempt and the end of its lease: an attempt starts only if it can end (by its
 * time-out) that long before the lease does, so that another process never claims a message whose attempt
 * is still running, unless its process stopped (or stalled for that long).
 */
const LEASE_MARGIN_MS = 5_000;
/** A timer may fire a little before the wall clock reaches its time: the claim must find the retry due. */
const RETRY_WAKE_LATE_MS = 5;

export interface DispatcherOptions {
  store: DeliveryStore;
  client: EndpointClient;
  policy: RetryPolicy;
  timeoutMs: number;
  observer: DeliveryObserver;
  log: DeliveryLog;
  /** Where each attempt's span goes while spans are exported. */
  spans?: SpanRecorder | undefined;
  now?: () => Date;
  random?: () => number;
}

export class Dispatcher {
  readonly #options: Required<Omit<DispatcherOptions, 'spans'>> & Pick<DispatcherOptions, 'spans'>;
  readonly #owner = randomUUID();
  readonly #leaseMs: number;
  readonly #settler: Settler;
  readonly #slots = new Slots(CONCURRENT_ATTEMPTS);
  readonly #runs = new Set<Promise<void>>();
  #held = 0;
  /** The claims under way, if any: one at a time. */
  #claiming: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #claimFailing = false;
  #poll: NodeJS.Timeout | undefined;
  #retry: { at: number; timer: NodeJS.Timeout } | undefined;

  constructor(options: DispatcherOptions) {
    this.#options = { now: () => new Date(), random: Math.random, ...options };
    this.#leaseMs = 2 * options.timeoutMs + LEASE_MARGIN_MS;
    this.#settler = new Settler(options.store, this.#owner, options.log);
  }

  start(): void {
    this.#poll = setInterval(() => this.wake(), POLL_MS);
    this.#poll.unref();
    this.wake();
  }

  /** Claims now, or once the claims under way are done. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#claiming) this.#again = true;
    else {
      this.#claiming = this.#claimWhileDue().finally(() => {
        this.#claiming = undefined;
        // Woken after the claims' last look and before this: look again.
        if (this.#again) this.wake();
      });
    }
  }

  /**
   * No more claims; the claim under way ends, and its runs and those under way end too (each attempt in
   * flight by its time-out), releasing the messages they had not tried yet.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#retry?.timer);
    await this.#claiming;
    while (this.#runs.size > 0) await Promise.all(this.#runs);
    await this.#settler.drained();
  }

  async #claimWhileDue(): Promise<void> {
    try {
      do {
        this.#again = false;
        await this.#claimUntilFull();
      } while (this.#again && !this.#stopped);
      this.#claimFailing = false;
    } catch (error) {
      // Said once, until a claim works again: the poll tries again, not the wakes meanwhile.
      this.#again = false;
      if (!this.#claimFailing) this.#options.log.error({ err: error }, 'could not claim messages to deliver; trying again');
      this.#claimFailing = true;
    }
  }

  async #claimUntilFull(): Promise<void> {
    while (!this.#stopped && this.#held < MAX_HELD) {
      const limit = Math.min(CLAIM_LIMIT, MAX_HELD - this.#held);
      // Measured before the claim is asked for: the lease ends no earlier than this says.
      const leaseEnd = performance.now() + this.#leaseMs;
      const now = this.#options.now();
      const claimed = await this.#options.store.claimMessages({
        owner: this.#owner,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + this.#leaseMs).toISOString(),
        limit,
      });
      this.#held += claimed.length;
      for (const run of byAccount(claimed)) this.#start(run, leaseEnd);
      if (claimed.length < limit) return;
    }
  }

  #start(messages: ClaimedMessage[], leaseEnd: number): void {
    const run = this.#deliver(messages, leaseEnd).finally(() => {
      this.#runs.delete(run);
      this.#held -= messages.length;
      // The account's next messages, if any, can be claimed now that these are settled.
      this.wake();
    });
    this.#runs.add(run);
  }

  /** One account's messages, in order; after a failure, the rest go back to the queue for the next claim. */
  async #deliver(messages: ClaimedMessage[], leaseEnd: number): Promise<void> {
    const settled: Promise<void>[] = [];
    let failed = false;
    for (const message of messages) {
      const release = await this.#slots.acquire();
      try {
        const enoughLease = leaseEnd - performance.now() >= this.#options.timeoutMs + LEASE_MARGIN_MS;
        if (failed || this.#stopped || !enoughLease) {
          settled.push(this.#settler.settle({ id: message.id, outcome: 'released' }));
          continue;
        }
        const settlement = await this.#attempt(message);
        settled.push(this.#settler.settle(settlement));
        failed = settlement.outcome !== 'delivered';
      } finally {
        release();
      }
    }
    await Promise.all(settled);
  }

  async #attempt(message: ClaimedMessage): Promise<Settlement> {
    const { client, policy, observer, log, random, now } = this.#options;
    // The attempt is a span of the trace of the request that sent the message, a child of its span.
    const span = childSpanOf(message.traceparent);
    const traced = traceFields(span);
    const givenUp = givenUpBeforeSending(message, now(), policy);
    if (givenUp) {
      log.warn({ messageId: message.id, attempt: message.attempt, ...traced, failed: true }, 'message delivery given up: no attempt is left');
      return givenUp;
    }
    const started = spanTime();
    const attempt = await client.post(message.id, payloadOf(message), now(), traceparentOf(span));
    this.#recordSpan(span, started, message, attempt);
    observer.attempted(attempt.outcome);
    const at = now();
    const settlement = settlementAfter(message, attempt, at, policy, random);
    if (settlement.outcome === 'delivered') observer.delivered((at.getTime() - Date.parse(message.createdAt)) / 1000);
    else this.#failedAttempt(message, traced, attempt, settlement);
    return settlement;
  }

  /** The attempt as an HTTP client span, while spans are exported. */
  #recordSpan(span: TraceContext, start: number, message: ClaimedMessage, attempt: Attempt): void {
    const { spans, client } = this.#options;
    if (spans === undefined || !isSampled(span)) return;
    const own = { 'store_orders.message_id': message.id, 'store_orders.attempt': message.attempt };
    spans.record(attemptSpan(span, start, spanTime(), client.url, attempt, own));
  }

  #failedAttempt(message: ClaimedMessage, traced: TraceFields, attempt: Attempt, settlement: Settlement): void {
    const reason = attempt.delivered ? undefined : attempt.reason;
    const fields = { messageId: message.id, attempt: message.attempt, ...traced, reason };
    if (settlement.outcome === 'retry') {
      this.#options.log.warn({ ...fields, retryAt: settlement.dueAt }, 'message delivery failed; it will be tried again');
      this.#wakeAt(Date.parse(settlement.dueAt));
    } else this.#options.log.warn({ ...fields, failed: true }, 'message delivery failed; no attempt is left');
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

/** What is POSTed: the Message as sendMessage answered it, and the name of the account that sent it. */
export function payloadOf({ id, message, createdAt, account }: ClaimedMessage): string {
  return JSON.stringify({ id, message, status: 'queued', createdAt, account });
}

/** The claimed messages by account, each account's in the order the claim gave them (accepted). */
function byAccount(messages: readonly ClaimedMessage[]): ClaimedMessage[][] {
  const runs = new Map<string, ClaimedMessage[]>();
  for (const message of messages) {
    const run = runs.get(message.account);
    if (run) run.push(message);
    else runs.set(message.account, [message]);
  }
  return [...runs.values()];
}
