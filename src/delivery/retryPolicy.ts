// What becomes of a claimed message: attempted or given up before it is sent, and after an attempt
// delivered, tried again after an exponential wait with jitter, or failed once its attempts or its age are
// spent. Pure: the time and the randomness are given.
import type { ClaimedMessage, Settlement } from '../store/store.js';
import type { RetryPolicy } from './settings.js';

/** What an attempt came to: a 2xx, or why not (never the answer's body). */
export type AttemptResult = { delivered: true } | { delivered: false; reason: string };

/** Said of a message whose attempts were all claimed, the last by a process that stopped before it ended. */
export const UNFINISHED = 'the last attempt did not finish: the server making it stopped';

/**
 * The wait before attempt `attempt + 1`: the first delay doubled for each attempt after the first, at most
 * the longest, of which the upper half is random (equal jitter): servers that failed together spread their
 * retries out, and none retries at once.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const full = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(attempt - 1, 52));
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * A message that must not be sent again: every attempt allowed was claimed (one whose process stopped
 * counts), or it is past its age and was tried before. Its first attempt is always made, however old.
 */
export function givenUpBeforeSending(message: ClaimedMessage, now: Date, policy: RetryPolicy): Settlement | undefined {
  const tooOld = message.attempt > 1 && ageMs(message, now) > policy.maxAgeMs;
  if (message.attempt <= policy.attempts && !tooOld) return undefined;
  return { id: message.id, outcome: 'failed', error: message.lastError ?? UNFINISHED, at: now.toISOString() };
}

/** After an attempt: delivered; or tried again if another attempt is allowed and would start in time; or failed. */
export function settlementAfter(
  message: ClaimedMessage,
  result: AttemptResult,
  now: Date,
  policy: RetryPolicy,
  random: () => number,
): Settlement {
  const { id } = message;
  if (result.delivered) return { id, outcome: 'delivered', at: now.toISOString() };
  const error = result.reason;
  const dueMs = now.getTime() + retryDelayMs(message.attempt, policy, random);
  const another = message.attempt < policy.attempts && dueMs - Date.parse(message.createdAt) <= policy.maxAgeMs;
  if (!another) return { id, outcome: 'failed', error, at: now.toISOString() };
  return { id, outcome: 'retry', error, dueAt: new Date(dueMs).toISOString() };
}

function ageMs(message: ClaimedMessage, now: Date): number {
  return now.getTime() - Date.parse(message.createdAt);
}
