// What a backend provides: one folder under store/ (sqlite/, postgres/) and one entry in backends.ts. It
// names its databases (URL schemes), reads its own settings from the environment, opens one repository per
// aggregate (compose.ts makes the Store of them, once for every backend) and copies its tables out and in
// (copy.ts). Nothing outside its folder knows a backend's settings, SQL or driver.
import type { Awaitable } from '../awaitable.js';
import type { CopySource, CopyTarget } from './copying.js';
import type { MigrationListener } from './migrations.js';
import type { QuotaLease, QuotaLeaseRequest } from './quotas.js';
import type { EventCounts, EventDeliveryStore, WebhookAdmin, WebhookStore } from './webhookStore.js';
import type {
  Account,
  ActiveKey,
  BackupOutcome,
  ClaimedMessage,
  DeprecatedCallListing,
  DeprecatedCalls,
  IdempotencyKey,
  IdempotentOutcome,
  KeyListing,
  Message,
  MessageClaim,
  MessageFilter,
  MessageStatus,
  MessageWithStatus,
  NewKey,
  NewMessage,
  NewOrder,
  OldKeyEnd,
  OrderFilter,
  OrderList,
  OrderPage,
  OrderPageQuery,
  OrderStatus,
  Pet,
  ReplacingKey,
  RetryOutcome,
  RevokeOutcome,
  RollOutcome,
  Settlement,
  StoredMessage,
  StoredOrder,
  Unauthorized,
} from './store.js';

/**
 * A repository answers synchronously or not: compose.ts gives every answer to the seam as a promise, but
 * the reads on a request's way (a key, the list, a page) as they came.
 */
export type { Awaitable };

/**
 * Orders, as store.ts's OrderStore and OrderAdmin and the telemetry's count. Every id given here is a safe
 * integer (compose.ts answers for any other). A `key` given is the API caller's digest: the call checks it
 * within its own statement or transaction, once every lock is taken, and answers UNAUTHORIZED, having
 * written nothing, unless it is active.
 */
export interface OrderRepository {
  list(key: Buffer): Awaitable<OrderList | Unauthorized>;
  page(query: OrderPageQuery): Awaitable<OrderPage>;
  /**
   * Moves the order to `to` if its status is `from`, committed before it settles, and answers `outcome` of
   * the status it had (undefined: no such order; UNAUTHORIZED: `key` is not active, and nothing moved).
   * The order keeps `traceparent` (none: the operator's move), which the event of the move copies.
   */
  move<T>(
    orderId: number,
    from: OrderStatus,
    to: OrderStatus,
    outcome: (found: OrderStatus | Unauthorized | undefined) => T,
    key?: Buffer,
    traceparent?: string,
  ): Awaitable<T>;
  add(order: NewOrder): Awaitable<StoredOrder>;
  /** All or nothing. */
  addAll(orders: readonly NewOrder[]): Awaitable<number>;
  find(orderId: number): Awaitable<StoredOrder | undefined>;
  listAll(filter?: OrderFilter): Awaitable<StoredOrder[]>;
  countByStatus(): Awaitable<Record<OrderStatus, number>>;
}

export interface PetRepository {
  find(petId: number): Awaitable<Pet | undefined>;
  add(name: string): Awaitable<Pet>;
}

/** The answer a new message gets: the message, and the 202's body as a retry replays it. */
export interface QueuedAnswer {
  message: Message;
  body: string;
}

/** Messages; `key` as OrderRepository's: the caller's, checked within the write's own transaction. */
export interface MessageRepository {
  /** Settles, with `queued`, once the message is committed. */
  enqueue(message: NewMessage, queued: Message, key: Buffer): Awaitable<Message | Unauthorized>;
  /**
   * The message and its key, in one transaction, answered `queued`; unless the key was used since
   * `oldestKept` (an ISO 8601 instant): then what it was used for (`in_flight` is compose.ts's to answer).
   */
  enqueueOnce(
    message: NewMessage,
    idempotency: IdempotencyKey,
    oldestKept: string,
    queued: QueuedAnswer,
    key: Buffer,
  ): Awaitable<Exclude<IdempotentOutcome, { outcome: 'in_flight' }>>;
  /** Forgets the keys used before `oldestKept`. */
  purgeKeys(oldestKept: string): Awaitable<void>;
  /** The message `messageId` if the account `accountId` sent it. */
  find(messageId: string, accountId: number): Awaitable<MessageWithStatus | undefined>;
  list(filter: MessageFilter): Awaitable<StoredMessage[]>;
  /** A failed message queued again now, due at once, its attempts counted from 0. */
  retry(messageId: string): Awaitable<RetryOutcome>;
  /** As DeliveryStore's claimMessages, at most `examined` messages of each kind looked at (messageQueue.ts). */
  claim(claim: MessageClaim, examined: number): Awaitable<ClaimedMessage[]>;
  settle(owner: string, settlements: readonly Settlement[]): Awaitable<void>;
  /** Deletes up to `limit` messages of `status` whose status was set before `before`; answers how many. */
  deleteSettled(status: Exclude<MessageStatus, 'queued'>, before: string, limit: number): Awaitable<number>;
  countQueued(): Awaitable<number>;
  countByStatus(): Awaitable<Record<MessageStatus, number>>;
  oldestQueuedAt(): Awaitable<string | undefined>;
}

/** What an answer of the store's is, given as it came: at once or later. */
type Answering<T> = { [Call in keyof T]: T[Call] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Awaitable<R> : never };

/** The accounts' webhook endpoints, as webhookStore.ts's WebhookStore and WebhookAdmin. */
export type WebhookRepository = Answering<WebhookStore & WebhookAdmin>;

/** Their events as the servers deliver them, and as the metrics count them (webhookStore.ts). */
export type EventDeliveryRepository = Answering<EventDeliveryStore & EventCounts>;

export interface KeyRepository {
  findActiveKey(digest: Buffer): Awaitable<ActiveKey | undefined>;
  createAccount(name: string): Awaitable<Account>;
  findAccount(name: string): Awaitable<Account | undefined>;
  createKey(key: NewKey): Awaitable<KeyListing>;
  listKeys(): Awaitable<KeyListing[]>;
  /** The id of the key whose digest is `digest`, revoked or not. */
  findKeyId(digest: Buffer): Awaitable<number | undefined>;
  revoke(keyId: number): Awaitable<RevokeOutcome>;
  /** In one transaction: the new key made, the old one's end set (the earlier of its expiry and `oldEnds`). */
  roll(keyId: number, newKey: ReplacingKey, oldEnds: OldKeyEnd): Awaitable<RollOutcome>;
  recordUses(keyIds: readonly number[], at: string): Awaitable<void>;
}

/** The shared count of the request quotas (quotas.ts). */
export interface QuotaRepository {
  /** Adds `spent` and then as much of `want` as the limit leaves to the window's count, in one transaction. */
  lease(request: QuotaLeaseRequest): Awaitable<QuotaLease>;
  /** Forgets the windows that began before `before` (milliseconds since the epoch), and the processes last seen then. */
  forget(before: number): Awaitable<void>;
}

export interface DeprecatedCallRepository {
  record(calls: readonly DeprecatedCalls[]): Awaitable<void>;
  list(): Awaitable<DeprecatedCallListing[]>;
}

/** An open database, as a backend gives it to compose.ts. */
export interface Repositories {
  orders: OrderRepository;
  pets: PetRepository;
  messages: MessageRepository;
  keys: KeyRepository;
  webhooks: WebhookRepository;
  eventDelivery: EventDeliveryRepository;
  deprecatedCalls: DeprecatedCallRepository;
  /**
   * The request quotas' count, for a database that processes on several machines share. Without it the
   * count stays on the machine (one process's memory, or its workers' primary): SQLite's case.
   */
  quotas?: QuotaRepository;
  /** A failure that passes, as StoreUnavailableError; anything else as it was thrown. */
  storeErrorFor(error: unknown): unknown;
  isReady(): Awaitable<boolean>;
  close(): Awaitable<void>;
  describe(): Record<string, string | boolean>;
  backup?(file: string): Promise<BackupOutcome>;
}

/** Who opens the store: the server, or an operator's command (the CLI, and the tests by default). */
export type StoreUse = 'server' | 'command';

/** What every backend is given as it opens, whichever it is; open.ts holds the defaults. */
export interface OpenOptions {
  /**
   * False: a database that is not there is an error, not a new empty one (the server's rule, and every
   * command's but `init`). Unset: true.
   */
  create: boolean;
  now: () => Date;
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove: number;
  /** How many long lists may be streamed at once. */
  maxStreamedLists: number;
  /** Told of each schema migration applied as the store opens, once they are committed. */
  onMigrated?: MigrationListener;
}

export interface Backend<Kind extends string, Location extends { kind: Kind }, Settings> {
  readonly kind: Kind;
  /** The URL prefixes that name one of its databases, whatever their case: `postgres://`. */
  readonly schemes: readonly string[];
  /** Whether a plain path (no scheme) names one of its databases: the default backend's. */
  readonly takesPaths: boolean;
  /** How its URLs look, for the message that refuses a URL of no backend: `a postgres:// URL`. */
  readonly urlForm: string;
  /** The database that `url` (one of its schemes, or a path) names; a ConfigError names `variable`. */
  locate(url: string, variable: string): Location;
  /** The URL that names the database, as `locate` takes it (with its password, if any). */
  url(location: Location): string;
  /** How the database is named to people: never with a password. */
  describe(location: Location): string;
  /** Its settings from the environment, with their defaults; a bad value is a ConfigError naming it. */
  settings(env: NodeJS.ProcessEnv, use: StoreUse): Settings;
  /** Opens the database and brings its schema up to date; a failure to open rejects. */
  open(location: Location, settings: Settings, options: OpenOptions): Promise<Repositories>;
  /** The source of `store-orders copy`: it refuses a schema that is not this build's. */
  exportFrom(location: Location, settings: Settings): Promise<CopySource>;
  /** The target of `store-orders copy`: created or brought up to date, then checked empty by `begin`. */
  importInto(location: Location, settings: Settings): Promise<CopyTarget>;
}
