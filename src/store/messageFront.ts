// The messages as the store gives them (compose.ts): an Idempotency-Key is handled the same way on every
// backend (one request per key in flight in this process, the expired keys purged now and then), and the
// queue as the servers deliver it.
import type { MessageRepository } from './backend.js';
import type { Guard } from './guard.js';
import { KeysInFlight } from './keysInFlight.js';
import { EXAMINED_PER_CLAIM, SETTLED_STATUSES } from './messageQueue.js';
import {
  type DeliveryStore,
  IDEMPOTENCY_KEY_TTL_MS,
  type IdempotentOutcome,
  type Message,
  type MessageAdmin,
  type MessageStore,
} from './messageStore.js';

/** Expired keys are refused by age anyway: purging them only bounds the table, so it need not be often. */
const PURGE_KEYS_EVERY_MS = 60_000;

export function messageFront(messages: MessageRepository, guard: Guard): MessageStore & MessageAdmin {
  const keysInFlight = new KeysInFlight();
  let lastPurgeMs = 0;
  /** Housekeeping beside the request: its answer never waits for it, nor fails with it. */
  const purgeNowAndThen = (createdAt: string, oldestKept: string) => {
    const nowMs = Date.parse(createdAt);
    if (nowMs - lastPurgeMs < PURGE_KEYS_EVERY_MS) return;
    lastPurgeMs = nowMs;
    guard.call(() => messages.purgeKeys(oldestKept)).catch(() => undefined);
  };
  return {
    enqueueMessage: (message, caller) =>
      guard.call(() => messages.enqueue(message, queuedMessage(message), caller.keyDigest)),
    enqueueMessageOnce: (message, idempotency, caller) =>
      keysInFlight.run(caller.accountId, idempotency.key, (): Promise<IdempotentOutcome> => {
        const oldestKept = new Date(Date.parse(message.createdAt) - IDEMPOTENCY_KEY_TTL_MS).toISOString();
        purgeNowAndThen(message.createdAt, oldestKept);
        const queued = queuedMessage(message);
        const answer = { message: queued, body: JSON.stringify(queued) };
        return guard.call(() => messages.enqueueOnce(message, idempotency, oldestKept, answer, caller.keyDigest));
      }),
    findMessage: (messageId, caller) => guard.call(() => messages.find(messageId, caller.accountId)),
    listMessages: (filter = {}) => guard.call(() => messages.list(filter)),
    retryMessage: (messageId) => guard.call(() => messages.retry(messageId)),
  };
}

export function deliveryFront(messages: MessageRepository, guard: Guard): DeliveryStore {
  return {
    claimMessages: (claim) => guard.call(() => messages.claim(claim, EXAMINED_PER_CLAIM)),
    settleMessages: (owner, settlements) =>
      settlements.length === 0 ? Promise.resolve() : guard.call(() => messages.settle(owner, settlements)),
    deleteSettledMessages: async (before, limit) => {
      let deleted = 0;
      for (const status of SETTLED_STATUSES) {
        if (deleted < limit) deleted += await guard.call(() => messages.deleteSettled(status, before, limit - deleted));
      }
      return deleted;
    },
  };
}

function queuedMessage({ id, message, createdAt }: { id: string; message: string; createdAt: string }): Message {
  return { id, message, status: 'queued', createdAt };
}
