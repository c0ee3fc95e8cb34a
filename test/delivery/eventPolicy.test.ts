// What becomes of an endpoint's event, alone: delivered (its failing time forgotten); after a failure tried
// again on the message delivery's schedule, no sooner than a 429's or 503's Retry-After within the longest
// wait; given up once its attempts or its age are spent, the endpoint going on; the endpoint disabled at
// once by a 410, and once its attempts have all failed for the operator's time.
import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../src/delivery/endpoint.js';
import { type EventPolicy, givenUpBeforeSending, settlementAfter } from '../../src/delivery/eventPolicy.js';
import type { ClaimedEndpoint } from '../../src/store/store.js';

const HOUR_MS = 3_600_000;
const policy: EventPolicy = {
  retry: { attempts: 5, maxAgeMs: 24 * HOUR_MS, firstDelayMs: 1_000, maxDelayMs: 10_000 },
  disableAfterMs: 120 * HOUR_MS,
};
const happened = Date.parse('2026-12-01T00:00:00.000Z');
const after = (ms: number) => new Date(happened + ms);
const endpoint = (attempt: number, extra: Partial<ClaimedEndpoint> = {}): ClaimedEndpoint => ({
  seq: 4,
  id: 'we_1',
  url: 'https://hooks.example.com/in',
  secrets: ['whsec_x'],
  attempt,
  event: { seq: 9, xact: '0', id: 'evt_1', type: 'order.cancelled', data: { id: 1 }, createdAt: new Date(happened).toISOString() },
  ...extra,
});
const answered = (status: number, retryAfterMs?: number): Attempt => ({
  delivered: false,
  outcome: 'http_error',
  reason: `the endpoint answered HTTP ${status}`,
  status,
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});
const place = { endpointSeq: 4, event: { seq: 9, xact: '0' } };
const noRandom = () => 1;

describe("what becomes of an endpoint's event", () => {
  it('is passed once delivered, the endpoint no longer failing', () => {
    const delivered: Attempt = { delivered: true, outcome: 'delivered', status: 200 };
    expect(settlementAfter(endpoint(2, { failingSince: after(0).toISOString() }), delivered, after(5_000), policy, noRandom)).toEqual({
      ...place,
      attempt: { eventId: 'evt_1', eventType: 'order.cancelled', attempt: 2, outcome: 'delivered', statusCode: 200, attemptedAt: after(5_000).toISOString() },
      passed: true,
      failingSince: null,
    });
  });

  it('is tried again after the schedule\'s wait, the endpoint failing from its first failure', () => {
    const settlement = settlementAfter(endpoint(1), answered(500), after(0), policy, noRandom);
    expect(settlement).toMatchObject({ passed: false, failingSince: after(0).toISOString(), dueAt: after(1_000).toISOString() });
    expect(settlement.disable).toBeUndefined();
  });

  it('waits what a 429 or 503 asks, within the longest wait; another status\'s Retry-After is not a request', () => {
    expect(settlementAfter(endpoint(1), answered(503, 4_000), after(0), policy, noRandom).dueAt).toBe(after(4_000).toISOString());
    expect(settlementAfter(endpoint(1), answered(429, 3_600_000), after(0), policy, noRandom).dueAt).toBe(after(10_000).toISOString());
    expect(settlementAfter(endpoint(1), answered(500, 4_000), after(0), policy, noRandom).dueAt).toBe(after(1_000).toISOString());
    // Never sooner than the schedule's own wait.
    expect(settlementAfter(endpoint(3), answered(503, 0), after(0), policy, noRandom).dueAt).toBe(after(4_000).toISOString());
  });

  it('is given up after the last attempt allowed, or when the next would come past its age, and the endpoint goes on', () => {
    expect(settlementAfter(endpoint(5), answered(500), after(0), policy, noRandom)).toMatchObject({ passed: true });
    expect(settlementAfter(endpoint(2), answered(500), after(24 * HOUR_MS - 500), policy, noRandom)).toMatchObject({ passed: true });
    // A replay's age counts from the replay.
    const replayed = endpoint(2);
    replayed.event.replayedAt = after(48 * HOUR_MS).toISOString();
    expect(settlementAfter(replayed, answered(500), after(48 * HOUR_MS + 1_000), policy, noRandom)).toMatchObject({ passed: false });
  });

  it('is given up before sending when every attempt was claimed, or it is past its age after a try; the first is always made', () => {
    expect(givenUpBeforeSending(endpoint(6), after(0), policy)).toMatchObject({ passed: true });
    expect(givenUpBeforeSending(endpoint(2), after(25 * HOUR_MS), policy)).toMatchObject({ passed: true });
    expect(givenUpBeforeSending(endpoint(1), after(25 * HOUR_MS), policy)).toBeUndefined();
  });

  it('disables the endpoint at once on a 410, and once its attempts have all failed for the operator\'s time', () => {
    expect(settlementAfter(endpoint(1), answered(410), after(0), policy, noRandom)).toMatchObject({ passed: false, disable: 'gone' });
    const failing = endpoint(3, { failingSince: after(0).toISOString() });
    expect(settlementAfter(failing, answered(500), after(120 * HOUR_MS - 1), policy, noRandom).disable).toBeUndefined();
    expect(settlementAfter(failing, answered(500), after(120 * HOUR_MS), policy, noRandom)).toMatchObject({ disable: 'failing' });
    const refused: Attempt = { delivered: false, outcome: 'connection_error', reason: 'connection refused' };
    expect(settlementAfter(endpoint(1), refused, after(0), policy, noRandom).attempt).toMatchObject({ outcome: 'failed', error: 'connection refused' });
  });
});
