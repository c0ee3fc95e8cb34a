// What the operations and the CLI need from storage, in the domain's words, one interface per aggregate:
// no SQL, no HTTP, no driver's error codes (a failure that passes is StoreUnavailableError, unavailable.ts).
// compose.ts builds it from a backend's repositories (backend.ts); open.ts opens it (backends.ts).
import type { components } from '../../generated/openapi.js';
import type { components as componentsV2 } from '../../generated/openapi.v2.js';
import type { Readable } from 'node:stream';
import type { Awaitable } from '../awaitable.js';
import type { QuotaStore } from './quotas.js';
import type { DeliveryStore, MessageAdmin, MessageStore } from './messageStore.js';
import type { TelemetryAdmin, TelemetryStore } from './telemetryStore.js';

export type { DeprecatedCallListing, DeprecatedCalls, TelemetryAdmin, TelemetryStore } from './telemetryStore.js';
export type {
  ClaimedMessage,
  DeliveryStore,
  IdempotencyKey,
  IdempotentOutcome,
  Message,
  MessageAdmin,
  MessageClaim,
  MessageFilter,
  MessageStatus,
  MessageStore,
  MessageWithStatus,
  NewMessage,
  RetryOutcome,
  Settlement,
  StoredMessage,
} from './messageStore.js';
export { IDEMPOTENCY_KEY_TTL_MS, MESSAGE_STATUSES } from './messageStore.js';

export type Order = components['schemas']['Order'];
export type Pet = components['schemas']['Pet'];

export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order as API v2 shows it: with its status. */
export type OrderWithStatus = componentsV2['schemas']['Order'];

/** An order as the operator sees it: the API fields plus the status that lives only in the store. */
export type StoredOrder = Order & { status: OrderStatus; createdAt: string; updatedAt: string };

/**
 * Ids are issued from 1 up, held as numbers, exact only up to 2^53 - 1. Given a larger one, every call finds
 * nothing and every move or revocation answers `missing`, whatever the backend; a filter's `petId` and a
 * page's `afterId` must be ids (the caller checks).
 */
export const isStoreId = (id: number): boolean => Number.isSafeInteger(id);

export type CancelOutcome = 'cancelled' | 'shipped' | 'missing';
export type ShipOutcome = 'shipped' | 'not_pending' | 'missing';

/**
 * A call made for an API caller answers this, having written and read nothing, when the caller's key is not
 * active as the call runs: the key is checked by the call's own statement or transaction (where a backend
 * can: otherwise just before it), so no write slips in after a revocation has committed.
 */
export const UNAUTHORIZED = 'unauthorized';
export type Unauthorized = typeof UNAUTHORIZED;

/** Who calls the API: the key's account and id, as an earlier lookup of the key found them. */
export interface Principal {
  accountId: number;
  /** The account's name, found by the key's own lookup: the request log names the account with it. */
  accountName: string;
  keyId: number;
  /** The key's digest, which every call made for the caller checks again (UNAUTHORIZED). */
  keyDigest: Buffer;
}

export type ActiveKey = Omit<Principal, 'keyDigest'> & { digest: Buffer };

export interface NewOrder {
  petId?: number;
  quantity?: number;
  shipDate?: string;
  complete?: boolean;
  status?: Exclude<OrderStatus, 'cancelled'>;
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

/**
 * The order list at one moment. `version` changes whenever the list may have changed, and never repeats,
 * across restarts and between the processes sharing one database included: it is what the ETag of a long
 * list is made of. A short list is held (`orders`, the same frozen array while `version` stays, so callers
 * may cache what they derive from it); a long one is only ever streamed (`rows`).
 */
export type OrderList =
  | { readonly version: string; readonly orders: readonly Order[] }
  | {
      readonly version: string;
      /**
       * Each order's JSON text, in id order, from one snapshot, in batches (an object-mode stream of string
       * arrays) read as fast as they are taken; destroying it lets the snapshot go. `undefined` while as
       * many lists are streamed as the store allows. contract/streamedArray.ts frames the array.
       */
      readonly rows: () => Readable | undefined;
    };

/**
 * Which orders a page (or the operator's listing) holds; every filter given applies. `shipDateFrom` is
 * inclusive and `shipDateBefore` exclusive, ISO 8601 instants in UTC as the store keeps ship dates (as
 * `Date#toISOString` writes them); an order without a ship date matches no bound.
 */
export interface OrderFilter {
  /** At least one. */
  statuses: readonly OrderStatus[];
  petId?: number;
  complete?: boolean;
  shipDateFrom?: string;
  shipDateBefore?: string;
}

/** Up to `limit` orders after the order `afterId` (0: from the first) that match `filter`. */
export interface OrderPageQuery {
  filter: OrderFilter;
  afterId: number;
  limit: number;
}

/**
 * A page read from one snapshot, in id order, examining a bounded number of orders (store/orderPages.ts): it
 * may hold fewer than `limit`, even none, and not be the last.
 */
export interface OrderPage {
  readonly orders: readonly OrderWithStatus[];
  /** The next page's `afterId`: this one's last order, or the last it examined; undefined on the last page. */
  readonly nextAfterId: number | undefined;
}

/** Orders as the API sees them; a call for a caller checks the caller's key (UNAUTHORIZED). */
export interface OrderStore {
  listOrders(caller: Principal): Awaitable<OrderList | Unauthorized>;
  /** Answered from an index, however deep the page, examining a bounded number of orders. */
  listOrderPage(query: OrderPageQuery): Awaitable<OrderPage>;
  /** Settles once the change is committed. Exactly one of any number of concurrent cancels wins. */
  cancelOrder(orderId: number, caller: Principal): Promise<CancelOutcome | Unauthorized>;
}

/** What the operator does with orders, beyond the API. */
export interface OrderAdmin {
  addOrder(order: NewOrder): Promise<StoredOrder>;
  /** All or nothing: one transaction. */
  importOrders(orders: readonly NewOrder[]): Promise<number>;
  shipOrder(orderId: number): Promise<ShipOutcome>;
  findOrder(orderId: number): Promise<StoredOrder | undefined>;
  /** Every order (or those matching `filter`), by id, cancelled ones included unless filtered out. */
  listAllOrders(filter?: OrderFilter): Promise<StoredOrder[]>;
}

export interface PetStore {
  findPet(petId: number): Promise<Pet | undefined>;
}

export interface PetAdmin {
  addPet(name: string): Promise<Pet>;
}

/** Accounts and their API keys, kept as digests only. */
export interface KeyStore {
  /** The active (not revoked) key whose digest is `digest`; a revoked key is never found again. */
  findActiveKey(digest: Buffer): Awaitable<ActiveKey | undefined>;
}

export interface KeyAdmin {
  createAccount(name: string): Promise<Account>;
  findAccount(name: string): Promise<Account | undefined>;
  createKey(accountId: number, digest: Buffer, displayPrefix: string): Promise<KeyListing>;
  listKeys(): Promise<KeyListing[]>;
  revokeKeyById(keyId: number): Promise<RevokeOutcome>;
  revokeKeyByDigest(digest: Buffer): Promise<RevokeOutcome>;
}

/** What the server depends on: each operation is given only the aggregate it uses. */
export interface Store {
  readonly orders: OrderStore;
  readonly pets: PetStore;
  readonly messages: MessageStore;
  readonly keys: KeyStore;
  readonly telemetry: TelemetryStore;
  /** The queue as the servers deliver it. */
  readonly delivery: DeliveryStore;
  /** The request quotas' count, where the database keeps it (see QuotaStore). */
  readonly quotas?: QuotaStore;
  /** Whether the database answers now (the readiness probe). */
  isReady(): Promise<boolean>;
  /** Lets go of the database; lists still streaming end first. */
  close(): Promise<void>;
}

/** What the operator's CLI needs on top: creating things the API cannot create. */
export interface AdminStore extends Store {
  readonly orders: OrderStore & OrderAdmin;
  readonly pets: PetStore & PetAdmin;
  readonly messages: MessageStore & MessageAdmin;
  readonly keys: KeyStore & KeyAdmin;
  readonly telemetry: TelemetryStore & TelemetryAdmin;
  /** What the start-up log line tells about the database (never a password). */
  describe(): Record<string, string | boolean>;
  /** A consistent copy of the whole database into a new file, taken while others write (a file's backend). */
  backup?(file: string): Promise<BackupOutcome>;
}
