// The retry policy alone: the wait doubles from the first delay up to the longest, its upper half random;
// a message is tried again while attempts are left and the next would start within its age, else failed;
// one whose attempts were all claimed, or that is past its age after a try, is given up before it is sent.
import { describe, expect, it } from 'vitest';
import { givenUpBeforeSending, retryDelayMs, settlementAfter, UNFINISHED } from '../../src/delivery/retryPolicy.js';
import type { RetryPolicy } from '../../src/delivery/settings.js';
import type { ClaimedMessage } from '../../src/store/store.js';

const policy: RetryPolicy = { attempts: 5, maxAgeMs: 3_600_000, firstDelayMs: 1_000, maxDelayMs: 10_000 };
const accepted = Date.parse('2026-01-01T00:00:00.000Z');
const message = (attempt: number, extra: Partial<ClaimedMessage> = {}): ClaimedMessage => ({
  id: 'msg_1',
  account: 'acme',
  message: 'hi',
  createdAt: new Date(accepted).toISOString(),
  attempt,
  ...extra,
});
const after = (ms: number) => new Date(accepted + ms);
const failure = { delivered: false, reason: 'the endpoint answered HTTP 503' } as const;

describe('the wait before the next attempt', () => {
  it('doubles from the first delay up to the longest, with its upper half random', () => {
    const low = (attempt: number) => retryDelayMs(attempt, policy, () => 0);
    const high = (attempt: number) => retryDelayMs(attempt, policy, () => 1);
    expect([1, 2, 3, 4, 5, 6].map(low)).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect([1, 2, 3, 4, 5, 6].map(high)).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(3_000);
  });

  it('stays at the longest however many attempts came before', () => {
    expect(retryDelayMs(10_000, policy, () => 1)).toBe(10_000);
  });
});

describe('what becomes of a message after an attempt', () => {
  it('is delivered by a 2xx, at the time of the answer', () => {
    expect(settlementAfter(message(1), { delivered: true }, after(50), policy, Math.random)).toEqual({
      id: 'msg_1',
      outcome: 'delivered',
      at: after(50).toISOString(),
    });
  });

  it('is tried again after the wait while attempts are left, with the reason kept', () => {
    expect(settlementAfter(message(2), failure, after(5_000), policy, () => 1)).toEqual({
      id: 'msg_1',
      outcome: 'retry',
      error: 'the endpoint answered HTTP 503',
      dueAt: after(7_000).toISOString(),
    });
  });

  it('fails at its last attempt, or when the next one would start past its age', () => {
    expect(settlementAfter(message(5), failure, after(1_000), policy, () => 0)).toEqual({
      id: 'msg_1',
      outcome: 'failed',
      error: 'the endpoint answered HTTP 503',
      at: after(1_000).toISOString(),
    });
    const late = after(policy.maxAgeMs - 1_000);
    expect(settlementAfter(message(2), failure, late, policy, () => 1).outcome).toBe('failed');
    expect(settlementAfter(message(2), failure, late, policy, () => 0).outcome).toBe('retry');
  });
});

describe('a message given up before it is sent', () => {
  it('is one whose every attempt was claimed (the last by a process that stopped), with its last error', () => {
    expect(givenUpBeforeSending(message(5), after(0), policy)).toBeUndefined();
    expect(givenUpBeforeSending(message(6), after(0), policy)).toEqual({
      id: 'msg_1',
      outcome: 'failed',
      error: UNFINISHED,
      at: after(0).toISOString(),
    });
    expect(givenUpBeforeSending(message(6, { lastError: 'connection refused' }), after(0), policy)).toMatchObject({
      error: 'connection refused',
    });
  });

  it('is one past its age that was tried before; a first attempt is made however old the message', () => {
    const old = after(policy.maxAgeMs + 1);
    expect(givenUpBeforeSending(message(1), old, policy)).toBeUndefined();
    expect(givenUpBeforeSending(message(2), old, policy)).toMatchObject({ outcome: 'failed' });
  });
});
