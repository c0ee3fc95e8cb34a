// What becomes of an endpoint's event after an attempt, or before one: delivered; tried again on the message
// delivery's schedule (no sooner than a 429's or 503's Retry-After asks, within the schedule's longest
// wait); given up once its attempts or its age are spent, the endpoint going on with its next event; or the
// endpoint disabled, at once on a 410, or once its attempts have all failed for the operator's time. Pure:
// the time and the randomness are given.
import type { ClaimedEndpoint, EventSettlement, WebhookDelivery } from '../store/store.js';
import type { Attempt } from './endpoint.js';
import { retryDelayMs } from './retryPolicy.js';
import type { RetryPolicy } from './settings.js';

export interface EventPolicy {
  retry: RetryPolicy;
  /** An endpoint whose every attempt has failed for this long is disabled (`failing`). */
  disableAfterMs: number;
}

/** The answers whose Retry-After is a request to wait (RFC 9110 §10.2.3). */
const ASKS_TO_WAIT = new Set([429, 503]);

/** When an event's age counts from: its replay's queuing, or its happening. */
const ageFrom = ({ event }: ClaimedEndpoint) => Date.parse(event.replayedAt ?? event.createdAt);

/**
 * An event that must not be sent again: every attempt allowed was claimed (one whose process stopped
 * counts), or it is past its age and was tried before. Its first attempt is always made, however old.
 */
export function givenUpBeforeSending(endpoint: ClaimedEndpoint, now: Date, { retry }: EventPolicy): EventSettlement | undefined {
  const tooOld = endpoint.attempt > 1 && now.getTime() - ageFrom(endpoint) > retry.maxAgeMs;
  if (endpoint.attempt <= retry.attempts && !tooOld) return undefined;
  return { ...settled(endpoint), passed: true, failingSince: endpoint.failingSince ?? now.toISOString() };
}

export function settlementAfter(
  endpoint: ClaimedEndpoint,
  result: Attempt,
  now: Date,
  policy: EventPolicy,
  random: () => number,
): EventSettlement {
  const attempt = attemptRecord(endpoint, result, now);
  if (result.delivered) return { ...settled(endpoint), attempt, passed: true, failingSince: null };
  const failingSince = endpoint.failingSince ?? now.toISOString();
  if (result.status === 410) return { ...settled(endpoint), attempt, passed: false, failingSince, disable: 'gone' };
  if (now.getTime() - Date.parse(failingSince) >= policy.disableAfterMs) {
    return { ...settled(endpoint), attempt, passed: false, failingSince, disable: 'failing' };
  }
  const { retry } = policy;
  let delayMs = retryDelayMs(endpoint.attempt, retry, random);
  if (result.retryAfterMs !== undefined && ASKS_TO_WAIT.has(result.status ?? 0)) {
    delayMs = Math.max(delayMs, Math.min(result.retryAfterMs, retry.maxDelayMs));
  }
  const dueMs = now.getTime() + delayMs;
  const another = endpoint.attempt < retry.attempts && dueMs - ageFrom(endpoint) <= retry.maxAgeMs;
  if (!another) return { ...settled(endpoint), attempt, passed: true, failingSince };
  return { ...settled(endpoint), attempt, passed: false, failingSince, dueAt: new Date(dueMs).toISOString() };
}

function settled({ seq, event }: ClaimedEndpoint): Pick<EventSettlement, 'endpointSeq' | 'event'> {
  const { replayedAt } = event;
  return { endpointSeq: seq, event: { seq: event.seq, xact: event.xact, ...(replayedAt !== undefined && { replayedAt }) } };
}

/** The attempt as the endpoint's deliveries list it: the status it answered, or why no answer came. */
function attemptRecord({ attempt, event }: ClaimedEndpoint, result: Attempt, now: Date): WebhookDelivery {
  return {
    eventId: event.id,
    eventType: event.type,
    attempt,
    outcome: result.delivered ? 'delivered' : 'failed',
    ...(result.status !== undefined && { statusCode: result.status }),
    ...(!result.delivered && result.status === undefined && { error: result.reason.slice(0, 500) }),
    attemptedAt: now.toISOString(),
  };
}
