// The better-sqlite3 Store. Every statement is prepared once; every write transaction is IMMEDIATE.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { StreamedArray } from '../../contract/streamedArray.js';
import type {
  Account,
  ActiveKey,
  AdminStore,
  CancelOutcome,
  IdempotencyKey,
  IdempotentOutcome,
  DeprecatedCallListing,
  DeprecatedCalls,
  KeyListing,
  Message,
  NewMessage,
  NewOrder,
  Order,
  OrderStatus,
  Pet,
  RevokeOutcome,
  ShipOutcome,
  StoredMessage,
  StoredOrder,
} from '../store.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../store.js';
import { GroupCommit } from './groupCommit.js';
import { OrderListReaders } from './orderStream.js';
import { isWritable, type OpenOptions, openDatabase } from './open.js';

interface OrderRow {
  id: number;
  pet_id: number | null;
  quantity: number | null;
  ship_date: string | null;
  complete: number | null;
}

interface StoredOrderRow extends OrderRow {
  status: OrderStatus;
  created_at: string;
  updated_at: string;
}

interface KeyRow {
  id: number;
  account: string;
  display_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

interface DeprecatedCallRow {
  operation_id: string;
  account: string;
  first_call_at: string;
  last_call_at: string;
  call_count: number;
}

interface MessageRow {
  id: string;
  account_id: number;
  body: string;
  status: 'queued';
  created_at: string;
}

/** Bounds the memory unknown digests can take; the cache starts over when it is full. */
const MAX_CACHED_KEYS = 10_000;

export interface SqliteStoreOptions extends OpenOptions {
  now?: () => Date;
  /** How long a write may wait for another process's write lock; see groupCommit.ts. */
  writeWaitMs?: number;
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove?: number;
  /** How many streamed lists may be read at once; see orderStream.ts. */
  maxStreamedLists?: number;
}

export function openSqliteStore(path: string, options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(openDatabase(path, options), {
    now: options.now ?? (() => new Date()),
    streamOrdersAbove: options.streamOrdersAbove ?? 10_000,
    maxStreamedLists: options.maxStreamedLists ?? 8,
    writeWaitMs: options.writeWaitMs ?? 5_000,
  });
}

export class SqliteStore implements AdminStore {
  readonly #db: Database.Database;
  readonly #now: () => string;
  readonly #statements;
  readonly #groupCommit: GroupCommit;
  readonly #recordDeprecatedCalls: Database.Transaction<(calls: readonly DeprecatedCalls[]) => void>;
  /** Commits made through this connection, which `data_version` does not count. */
  #ownWrites = 0;
  #stamp: string | undefined;
  #orders: { stamp: string; orders: readonly Order[] | StreamedArray } | undefined;
  readonly #streamOrdersAbove: number;
  readonly #listReaders: OrderListReaders;
  /** Tells this process's list versions from those of an earlier run, whose counters started alike. */
  readonly #bootId = randomUUID().replaceAll('-', '').slice(0, 16);
  /** `accountId key` of the idempotent writes not yet committed. */
  readonly #keysInFlight = new Set<string>();
  #lastIdempotencyPurge = 0;
  /** Digests already looked up, found or not; never the keys themselves. */
  #activeKeys: { stamp: string; byDigest: Map<string, ActiveKey | undefined> } = {
    stamp: '',
    byDigest: new Map(),
  };

  constructor(
    db: Database.Database,
    {
      now,
      streamOrdersAbove,
      maxStreamedLists,
      writeWaitMs,
    }: { now: () => Date; streamOrdersAbove: number; maxStreamedLists: number; writeWaitMs: number },
  ) {
    this.#db = db;
    this.#streamOrdersAbove = streamOrdersAbove;
    this.#listReaders = new OrderListReaders(db.name, maxStreamedLists);
    this.#groupCommit = new GroupCommit(db, () => this.#changed(), writeWaitMs);
    this.#now = () => now().toISOString();
    this.#statements = {
      listOrders: db.prepare<[], OrderRow>(
        `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
      ),
      listAllOrders: db.prepare<[], StoredOrderRow>(`SELECT * FROM orders ORDER BY id`),
      orderById: db.prepare<[number], StoredOrderRow>(`SELECT * FROM orders WHERE id = ?`),
      orderStatus: db.prepare<[number], { status: OrderStatus }>(`SELECT status FROM orders WHERE id = ?`),
      moveOrder: db.prepare<[OrderStatus, string, number, OrderStatus]>(
        `UPDATE orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?`,
      ),
      insertOrder: db.prepare<
        [number | null, number | null, string | null, number, OrderStatus, string, string]
      >(
        `INSERT INTO orders (pet_id, quantity, ship_date, complete, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertMessage: db.prepare<[string, number, string, string]>(
        `INSERT INTO messages (id, account_id, body, status, created_at) VALUES (?, ?, ?, 'queued', ?)`,
      ),
      listMessages: db.prepare<[], MessageRow>(
        `SELECT id, account_id, body, status, created_at FROM messages ORDER BY seq`,
      ),
      idempotentAnswer: db.prepare<
        [number, string],
        { fingerprint: Buffer; status: number; body: string; created_at: string }
      >(
        `SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE account_id = ? AND key = ?`,
      ),
      forgetIdempotencyKey: db.prepare<[number, string]>(
        `DELETE FROM idempotency_keys WHERE account_id = ? AND key = ?`,
      ),
      rememberIdempotencyKey: db.prepare<[number, string, Buffer, number, string, string]>(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      purgeIdempotencyKeys: db.prepare<[string]>(`DELETE FROM idempotency_keys WHERE created_at < ?`),
      petById: db.prepare<[number], Pet>(`SELECT id, name FROM pets WHERE id = ?`),
      insertPet: db.prepare<[string, string]>(`INSERT INTO pets (name, created_at) VALUES (?, ?)`),
      activeKey: db.prepare<[Buffer], { id: number; account_id: number; digest: Buffer }>(
        `SELECT id, account_id, digest FROM api_keys WHERE digest = ? AND revoked_at IS NULL`,
      ),
      insertKey: db.prepare<[number, Buffer, string, string]>(
        `INSERT INTO api_keys (account_id, digest, display_prefix, created_at) VALUES (?, ?, ?, ?)`,
      ),
      listKeys: db.prepare<[], KeyRow>(
        `SELECT k.id, a.name AS account, k.display_prefix, k.created_at, k.revoked_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.id`,
      ),
      keyById: db.prepare<[number | bigint], KeyRow>(
        `SELECT k.id, a.name AS account, k.display_prefix, k.created_at, k.revoked_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?`,
      ),
      keyIdByDigest: db.prepare<[Buffer], { id: number }>(`SELECT id FROM api_keys WHERE digest = ?`),
      revokeKey: db.prepare<[string, number]>(
        `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
      ),
      accountByName: db.prepare<[string], { id: number; name: string; created_at: string }>(
        `SELECT id, name, created_at FROM accounts WHERE name = ?`,
      ),
      insertAccount: db.prepare<[string, string]>(`INSERT INTO accounts (name, created_at) VALUES (?, ?)`),
      ping: db.prepare<[], { ok: number }>(`SELECT 1 AS ok`),
      dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
      countOrdersUpTo: db
        .prepare<[number]>(`SELECT count(*) FROM (SELECT 1 FROM orders WHERE status <> 'cancelled' LIMIT ?)`)
        .pluck(),
      countOrdersByStatus: db.prepare<[], { status: OrderStatus; count: number }>(
        `SELECT status, count(*) AS count FROM orders GROUP BY status`,
      ),
      countQueuedMessages: db.prepare(`SELECT count(*) FROM messages WHERE status = 'queued'`).pluck(),
      addDeprecatedCalls: db.prepare<[string, number, string, string, number]>(
        `INSERT INTO deprecated_calls (operation_id, account_id, first_call_at, last_call_at, call_count)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (operation_id, account_id) DO UPDATE SET
           first_call_at = min(first_call_at, excluded.first_call_at),
           last_call_at = max(last_call_at, excluded.last_call_at),
           call_count = call_count + excluded.call_count`,
      ),
      listDeprecatedCalls: db.prepare<[], DeprecatedCallRow>(
        `SELECT d.operation_id, a.name AS account, d.first_call_at, d.last_call_at, d.call_count
         FROM deprecated_calls d JOIN accounts a ON a.id = d.account_id
         ORDER BY d.operation_id, d.last_call_at DESC, a.name`,
      ),
    };
    this.#recordDeprecatedCalls = db.transaction((calls: readonly DeprecatedCalls[]) => {
      for (const { operationId, accountId, firstCallAt, lastCallAt, count } of calls) {
        this.#statements.addDeprecatedCalls.run(operationId, accountId, firstCallAt, lastCallAt, count);
      }
    });
  }

  /**
   * The same frozen array until the orders may have changed, so callers can cache what they derive. A list
   * longer than `streamOrdersAbove` is never held in memory: it is streamed from a snapshot instead.
   */
  listOrders(): readonly Order[] | StreamedArray {
    const stamp = this.#changeStamp();
    if (this.#orders?.stamp !== stamp) {
      const count = this.#statements.countOrdersUpTo.get(this.#streamOrdersAbove + 1) as number;
      const readers = this.#listReaders;
      const orders: readonly Order[] | StreamedArray =
        count > this.#streamOrdersAbove
          ? { streamed: true, version: `${this.#bootId}-${stamp}`, open: () => readers.stream() }
          : Object.freeze(this.#statements.listOrders.all().map(toOrder));
      this.#orders = { stamp, orders };
    }
    return this.#orders.orders;
  }

  cancelOrder(orderId: number): Promise<CancelOutcome> {
    // Ids beyond 2^53 are valid int64 but never issued here; looking them up would need exact BigInt ids.
    if (!Number.isSafeInteger(orderId)) return Promise.resolve('missing');
    return this.#groupCommit.run(() => {
      if (this.#move(orderId, 'pending', 'cancelled')) return 'cancelled';
      const status = this.#statements.orderStatus.get(orderId)?.status;
      return status === 'shipped' ? 'shipped' : 'missing';
    });
  }

  async enqueueMessage({ id, accountId, message, createdAt }: NewMessage): Promise<Message> {
    await this.#groupCommit.run(() => this.#statements.insertMessage.run(id, accountId, message, createdAt));
    return { id, message, status: 'queued', createdAt };
  }

  async enqueueMessageOnce(
    message: NewMessage,
    { key, fingerprint }: IdempotencyKey,
  ): Promise<IdempotentOutcome> {
    const inFlight = `${message.accountId} ${key}`;
    if (this.#keysInFlight.has(inFlight)) return { outcome: 'in_flight' };
    this.#keysInFlight.add(inFlight);
    try {
      return await this.#groupCommit.run(() => this.#enqueueOnce(message, key, fingerprint));
    } finally {
      this.#keysInFlight.delete(inFlight);
    }
  }

  #enqueueOnce(message: NewMessage, key: string, fingerprint: Buffer): IdempotentOutcome {
    const { id, accountId, createdAt } = message;
    const oldestKept = new Date(Date.parse(createdAt) - IDEMPOTENCY_KEY_TTL_MS).toISOString();
    this.#purgeExpiredKeys(createdAt, oldestKept);
    const earlier = this.#statements.idempotentAnswer.get(accountId, key);
    if (earlier && earlier.created_at >= oldestKept) {
      if (!earlier.fingerprint.equals(fingerprint)) return { outcome: 'key_reused' };
      return { outcome: 'replayed', status: earlier.status, body: earlier.body };
    }
    if (earlier) this.#statements.forgetIdempotencyKey.run(accountId, key);
    this.#statements.insertMessage.run(id, accountId, message.message, createdAt);
    const queued: Message = { id, message: message.message, status: 'queued', createdAt };
    this.#statements.rememberIdempotencyKey.run(
      accountId,
      key,
      fingerprint,
      202,
      JSON.stringify(queued),
      createdAt,
    );
    return { outcome: 'queued', message: queued };
  }

  /** At most once a minute: expired keys are refused by age anyway, this only bounds the table. */
  #purgeExpiredKeys(now: string, oldestKept: string): void {
    const nowMs = Date.parse(now);
    if (nowMs - this.#lastIdempotencyPurge < 60_000) return;
    this.#lastIdempotencyPurge = nowMs;
    this.#statements.purgeIdempotencyKeys.run(oldestKept);
  }

  findPet(petId: number): Pet | undefined {
    if (!Number.isSafeInteger(petId)) return undefined;
    return this.#statements.petById.get(petId);
  }

  /** Answers from memory until any connection changes the database, so a revocation counts at once. */
  findActiveKey(digest: Buffer): ActiveKey | undefined {
    const stamp = this.#changeStamp();
    if (this.#activeKeys.stamp !== stamp || this.#activeKeys.byDigest.size >= MAX_CACHED_KEYS) {
      this.#activeKeys = { stamp, byDigest: new Map() };
    }
    const hex = digest.toString('hex');
    if (this.#activeKeys.byDigest.has(hex)) return this.#activeKeys.byDigest.get(hex);
    const row = this.#statements.activeKey.get(digest);
    const key = row && { keyId: row.id, accountId: row.account_id, digest: row.digest };
    this.#activeKeys.byDigest.set(hex, key);
    return key;
  }

  isReady(): boolean {
    return this.#statements.ping.get()?.ok === 1;
  }

  countOrdersByStatus(): Record<OrderStatus, number> {
    const counts: Record<OrderStatus, number> = { pending: 0, shipped: 0, cancelled: 0 };
    for (const { status, count } of this.#statements.countOrdersByStatus.all()) counts[status] = count;
    return counts;
  }

  countQueuedMessages(): number {
    return this.#statements.countQueuedMessages.get() as number;
  }

  /**
   * Times are ISO 8601 in UTC, so min and max compare them as text. Not counted as a change of the data
   * the caches hold: no order, key or message moves.
   */
  recordDeprecatedCalls(calls: readonly DeprecatedCalls[]): void {
    if (calls.length > 0) this.#recordDeprecatedCalls.immediate(calls);
  }

  close(): void {
    this.#listReaders.close();
    this.#db.close();
  }

  /** The durability settings as SQLite reads them back, for the start-up log line. */
  settings(): { journalMode: string; synchronous: string; writable: boolean } {
    const level = this.#db.pragma('synchronous', { simple: true }) as number;
    return {
      journalMode: this.#db.pragma('journal_mode', { simple: true }) as string,
      synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level),
      writable: isWritable(this.#db.name),
    };
  }

  createAccount(name: string): Account {
    const createdAt = this.#now();
    const { lastInsertRowid } = this.#immediate(() => this.#statements.insertAccount.run(name, createdAt));
    return { id: Number(lastInsertRowid), name, createdAt };
  }

  findAccount(name: string): Account | undefined {
    const row = this.#statements.accountByName.get(name);
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  createKey(accountId: number, digest: Buffer, displayPrefix: string): KeyListing {
    const { lastInsertRowid } = this.#immediate(() =>
      this.#statements.insertKey.run(accountId, digest, displayPrefix, this.#now()),
    );
    return toKeyListing(this.#statements.keyById.get(lastInsertRowid) as KeyRow);
  }

  listKeys(): KeyListing[] {
    return this.#statements.listKeys.all().map(toKeyListing);
  }

  revokeKeyById(keyId: number): RevokeOutcome {
    return this.#immediate(() => {
      if (this.#statements.revokeKey.run(this.#now(), keyId).changes === 1) return 'revoked';
      return this.#statements.keyById.get(keyId) ? 'already_revoked' : 'missing';
    });
  }

  revokeKeyByDigest(digest: Buffer): RevokeOutcome {
    const row = this.#statements.keyIdByDigest.get(digest);
    return row ? this.revokeKeyById(row.id) : 'missing';
  }

  addOrder(order: NewOrder): StoredOrder {
    const id = this.#immediate(() => this.#insertOrder(order));
    return this.findOrder(Number(id)) as StoredOrder;
  }

  importOrders(orders: NewOrder[]): number {
    return this.#immediate(() => {
      for (const order of orders) this.#insertOrder(order);
      return orders.length;
    });
  }

  shipOrder(orderId: number): ShipOutcome {
    return this.#immediate(() => {
      if (this.#move(orderId, 'pending', 'shipped')) return 'shipped';
      return this.#statements.orderStatus.get(orderId) ? 'not_pending' : 'missing';
    });
  }

  findOrder(orderId: number): StoredOrder | undefined {
    const row = this.#statements.orderById.get(orderId);
    return row && toStoredOrder(row);
  }

  listAllOrders(): StoredOrder[] {
    return this.#statements.listAllOrders.all().map(toStoredOrder);
  }

  addPet(name: string): Pet {
    const { lastInsertRowid } = this.#immediate(() => this.#statements.insertPet.run(name, this.#now()));
    return { id: Number(lastInsertRowid), name };
  }

  listMessages(): StoredMessage[] {
    return this.#statements.listMessages.all().map((row) => ({
      id: row.id,
      accountId: row.account_id,
      message: row.body,
      status: row.status,
      createdAt: row.created_at,
    }));
  }

  listDeprecatedCalls(): DeprecatedCallListing[] {
    return this.#statements.listDeprecatedCalls.all().map((row) => ({
      operationId: row.operation_id,
      account: row.account,
      firstCallAt: row.first_call_at,
      lastCallAt: row.last_call_at,
      count: row.call_count,
    }));
  }

  #insertOrder({ petId, quantity, shipDate, complete, status }: NewOrder): number | bigint {
    const now = this.#now();
    return this.#statements.insertOrder.run(
      petId ?? null,
      quantity ?? null,
      shipDate ?? null,
      complete ? 1 : 0,
      status ?? 'pending',
      now,
      now,
    ).lastInsertRowid;
  }

  #move(orderId: number, from: OrderStatus, to: OrderStatus): boolean {
    return this.#statements.moveOrder.run(to, this.#now(), orderId, from).changes === 1;
  }

  #immediate<T>(work: () => T): T {
    try {
      return this.#db.transaction(work).immediate();
    } finally {
      this.#changed();
    }
  }

  #changed(): void {
    this.#ownWrites++;
    this.#stamp = undefined;
  }

  /**
   * Changes whenever the database may have changed: `data_version` counts other connections' commits.
   * It is read once per turn of the event loop: a request that arrives after another process committed
   * is read from its socket in a later turn, after the check phase has cleared the stamp.
   */
  #changeStamp(): string {
    if (this.#stamp === undefined) {
      this.#stamp = `${this.#statements.dataVersion.get() as number}-${this.#ownWrites}`;
      setImmediate(() => {
        this.#stamp = undefined;
      });
    }
    return this.#stamp;
  }
}

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  if (row.complete !== null) order.complete = row.complete === 1;
  return order;
}

function toStoredOrder(row: StoredOrderRow): StoredOrder {
  return { ...toOrder(row), status: row.status, createdAt: row.created_at, updatedAt: row.updated_at };
}

function toKeyListing(row: KeyRow): KeyListing {
  const listing: KeyListing = {
    id: row.id,
    account: row.account,
    displayPrefix: row.display_prefix,
    createdAt: row.created_at,
  };
  if (row.revoked_at !== null) listing.revokedAt = row.revoked_at;
  return listing;
}
