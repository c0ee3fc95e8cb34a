// The seam's part for messages: the queue the API writes (with its Idempotency-Keys), what a client and the
// operator read of it, and the claims by which the servers deliver it (delivery/), each message by one
// process at a time.
import type { components } from '../../generated/openapi.js';
import type { components as componentsV2 } from '../../generated/openapi.v2.js';
import type { Principal, Unauthorized } from './vocabulary.js';

export type Message = components['schemas']['Message'];

/** A message as API v2 reads it: with where its delivery stands. */
export type MessageWithStatus = componentsV2['schemas']['MessageWithStatus'];
export type MessageStatus = componentsV2['schemas']['MessageStatus'];

/** Every status, in the contract's order; a status the contract gains and this list lacks fails `tsc`. */
export const MESSAGE_STATUSES = ['queued', 'delivered', 'failed'] as const satisfies readonly MessageStatus[];
type Unlisted = Exclude<MessageStatus, (typeof MESSAGE_STATUSES)[number]>;
export const EVERY_STATUS_LISTED: Unlisted extends never ? true : never = true;

/** A message to queue, for the account of the caller's key. */
export interface NewMessage {
  id: string;
  message: string;
  createdAt: string;
  /**
   * The W3C `traceparent` of the request that sent it (its trace, and the request's span as the parent):
   * its delivery attempts are spans of that trace. Kept as data, row by row, since one group commit writes
   * the messages of many requests.
   */
  traceparent?: string;
}

/** A client's retry key for one write, scoped to its account (the Idempotency-Key field). */
export interface IdempotencyKey {
  key: string;
  /** A digest of the request, to tell a retry from a different request reusing the key. */
  fingerprint: Buffer;
}

export type IdempotentOutcome =
  | { outcome: 'queued'; message: Message }
  /** The key was used before for the same request: its first answer, as sent. */
  | { outcome: 'replayed'; status: number; body: string }
  | { outcome: 'key_reused' }
  | { outcome: 'in_flight' }
  | { outcome: Unauthorized };

/** How long an idempotency key is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A message as the operator lists it: with the name of the account that sent it, as other listings, and
 * its delivery's bookkeeping: the attempts made (counting one whose process stopped before it could record
 * the answer) and the error of the last one that failed, if any.
 */
export interface StoredMessage extends MessageWithStatus {
  account: string;
  attempts: number;
  lastError?: string;
}

/** Which messages the operator lists: of one status, the first `limit`, oldest first. */
export interface MessageFilter {
  status?: MessageStatus;
  limit?: number;
}

/** `requeued`: it was failed and is queued again; otherwise the status it has, left as it was. */
export type RetryOutcome = 'requeued' | 'queued' | 'delivered' | 'missing';

/** The message queue and its Idempotency-Keys, each write for a caller whose key it checks (UNAUTHORIZED). */
export interface MessageStore {
  /** Settles once the message is committed, as the caller's account's. */
  enqueueMessage(message: NewMessage, caller: Principal): Promise<Message | Unauthorized>;
  /**
   * enqueueMessage at most once per key and account within IDEMPOTENCY_KEY_TTL_MS of the message's
   * `createdAt`; a request still being written under the same key is `in_flight`.
   */
  enqueueMessageOnce(message: NewMessage, idempotency: IdempotencyKey, caller: Principal): Promise<IdempotentOutcome>;
  /** The message, if the caller's account sent it: another account's is not found, as an unknown one. */
  findMessage(messageId: string, caller: Principal): Promise<MessageWithStatus | undefined>;
}

export interface MessageAdmin {
  listMessages(filter?: MessageFilter): Promise<StoredMessage[]>;
  /** Puts a failed message back in the queue, with every attempt allowed again. */
  retryMessage(messageId: string): Promise<RetryOutcome>;
}

/** A claim: up to `limit` messages due at `now`, leased to `owner` until `leaseUntil` (ISO 8601 instants). */
export interface MessageClaim {
  owner: string;
  now: string;
  leaseUntil: string;
  limit: number;
}

/** A claimed message, with what its delivery sends and what the policy reads. */
export interface ClaimedMessage {
  id: string;
  account: string;
  message: string;
  createdAt: string;
  /** This attempt's number, from 1: each claim counts one. */
  attempt: number;
  lastError?: string;
  /** The `traceparent` the message was sent with, if any. */
  traceparent?: string;
}

/** What became of a claimed message: each applies only while its claim still holds the message. */
export type Settlement =
  | { id: string; outcome: 'delivered'; at: string }
  /** Back in the queue, due again at `dueAt`. */
  | { id: string; outcome: 'retry'; error: string; dueAt: string }
  | { id: string; outcome: 'failed'; error: string; at: string }
  /** Not attempted: back in the queue as it was before the claim, due at once. */
  | { id: string; outcome: 'released' };

/**
 * The queue as the servers deliver it. A message is claimed by one process at a time: a claim holds it
 * until its lease ends, and once the lease has ended another claim may take it (its process stopped). An
 * account's message is claimed only while none of the account's earlier messages is held by a claim, and
 * a claim answers messages in the order they were accepted, so that an account's messages are delivered in
 * that order; one waiting for a retry does not hold back the others.
 */
export interface DeliveryStore {
  claimMessages(claim: MessageClaim): Promise<ClaimedMessage[]>;
  /** Records each settlement whose message `owner` still holds, queued; others are left as they are. */
  settleMessages(owner: string, settlements: readonly Settlement[]): Promise<void>;
  /** Deletes up to `limit` delivered or failed messages whose status was set before `before`; answers how many. */
  deleteSettledMessages(before: string, limit: number): Promise<number>;
}
