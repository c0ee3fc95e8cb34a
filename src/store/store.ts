// What the operations and the CLI need from storage, named for what the domain does. No SQL, no HTTP.
import type { components } from '../../generated/openapi.js';
import type { StreamedArray } from '../contract/streamedArray.js';

export type Order = components['schemas']['Order'];
export type Message = components['schemas']['Message'];
export type Pet = components['schemas']['Pet'];

export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order as the operator sees it: the API fields plus the status that lives only in the store. */
export type StoredOrder = Order & { status: OrderStatus; createdAt: string; updatedAt: string };

export type CancelOutcome = 'cancelled' | 'shipped' | 'missing';
export type ShipOutcome = 'shipped' | 'not_pending' | 'missing';

export interface Principal {
  accountId: number;
  keyId: number;
}

export interface ActiveKey extends Principal {
  digest: Buffer;
}

export interface NewOrder {
  petId?: number;
  quantity?: number;
  shipDate?: string;
  complete?: boolean;
  status?: Exclude<OrderStatus, 'cancelled'>;
}

export interface NewMessage {
  id: string;
  accountId: number;
  message: string;
  createdAt: string;
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
  | { outcome: 'in_flight' };

/** How long an idempotency key is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** A message as the operator lists it: with the name of the account that sent it, as other listings. */
export interface StoredMessage extends Message {
  account: string;
}

/** `exists`: the backup's file was already there and is left as it was. */
export type BackupOutcome = 'written' | 'exists';

export interface Account {
  id: number;
  name: string;
  createdAt: string;
}

export interface KeyListing {
  id: number;
  account: string;
  displayPrefix: string;
  createdAt: string;
  revokedAt?: string;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'missing';

/** Calls of one deprecated operation by one account: when they started and stopped, and how many. */
export interface DeprecatedCalls {
  operationId: string;
  accountId: number;
  firstCallAt: string;
  lastCallAt: string;
  count: number;
}

export type DeprecatedCallListing = Omit<DeprecatedCalls, 'accountId'> & { account: string };

/** What the API operations depend on. */
export interface Store {
  /** Long lists come as a stream (see contract/streamedArray.ts). */
  listOrders(): readonly Order[] | StreamedArray;
  /** Settles once the change is committed; writes of one event-loop turn share a commit. */
  cancelOrder(orderId: number): Promise<CancelOutcome>;
  /** Settles once the message is committed; writes of one event-loop turn share a commit. */
  enqueueMessage(message: NewMessage): Promise<Message>;
  /**
   * enqueueMessage at most once per key and account within IDEMPOTENCY_KEY_TTL_MS of the message's
   * `createdAt`; a request still being written under the same key is `in_flight`.
   */
  enqueueMessageOnce(message: NewMessage, idempotency: IdempotencyKey): Promise<IdempotentOutcome>;
  findPet(petId: number): Pet | undefined;
  /** The active (not revoked) key whose digest is `digest`. */
  findActiveKey(digest: Buffer): ActiveKey | undefined;
  isReady(): boolean;
  /** Read at scrape time by the metrics. */
  countOrdersByStatus(): Record<OrderStatus, number>;
  /** Messages waiting in the queue (status `queued`). */
  countQueuedMessages(): number;
  /** Adds the calls to those already recorded, all in one transaction. */
  recordDeprecatedCalls(calls: readonly DeprecatedCalls[]): void;
  close(): void;
}

/** What the operator's CLI needs on top: creating things the API cannot create. */
export interface AdminStore extends Store {
  createAccount(name: string): Account;
  findAccount(name: string): Account | undefined;
  createKey(accountId: number, digest: Buffer, displayPrefix: string): KeyListing;
  listKeys(): KeyListing[];
  revokeKeyById(keyId: number): RevokeOutcome;
  revokeKeyByDigest(digest: Buffer): RevokeOutcome;
  addOrder(order: NewOrder): StoredOrder;
  /** All or nothing: one transaction. */
  importOrders(orders: NewOrder[]): number;
  shipOrder(orderId: number): ShipOutcome;
  findOrder(orderId: number): StoredOrder | undefined;
  listAllOrders(): StoredOrder[];
  addPet(name: string): Pet;
  listMessages(): StoredMessage[];
  listDeprecatedCalls(): DeprecatedCallListing[];
  /** A consistent copy of the whole database into a new file, taken while others write. */
  backup(file: string): Promise<BackupOutcome>;
}
