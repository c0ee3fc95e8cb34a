// The better-sqlite3 Store: one connection shared by a module per aggregate. Every statement is prepared
// once; every write transaction is IMMEDIATE.
import type Database from 'better-sqlite3';
import type { StreamedArray } from '../../contract/streamedArray.js';
import type {
  Account,
  ActiveKey,
  AdminStore,
  BackupOutcome,
  CancelOutcome,
  DeprecatedCallListing,
  DeprecatedCalls,
  IdempotencyKey,
  IdempotentOutcome,
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
import { Accounts } from './accounts.js';
import { backupInto } from './backup.js';
import { Connection } from './connection.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { Messages } from './messages.js';
import { isWritable, type OpenOptions, openDatabase } from './open.js';
import { type OrderListOptions, Orders } from './orders.js';
import { Pets } from './pets.js';

export interface SqliteStoreOptions extends OpenOptions, Partial<OrderListOptions> {
  now?: () => Date;
  /** How long a write may wait for another process's write lock; see groupCommit.ts. */
  writeWaitMs?: number;
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
  readonly #ping;
  readonly #orders: Orders;
  readonly #messages: Messages;
  readonly #accounts: Accounts;
  readonly #pets: Pets;
  readonly #deprecatedCalls: DeprecatedCallLog;

  constructor(
    db: Database.Database,
    { now, writeWaitMs, ...lists }: { now: () => Date; writeWaitMs: number } & OrderListOptions,
  ) {
    const connection = new Connection(db, now, writeWaitMs);
    this.#db = db;
    this.#ping = db.prepare<[], { ok: number }>(`SELECT 1 AS ok`);
    this.#orders = new Orders(connection, lists);
    this.#messages = new Messages(connection);
    this.#accounts = new Accounts(connection);
    this.#pets = new Pets(connection);
    this.#deprecatedCalls = new DeprecatedCallLog(db);
  }

  listOrders(): readonly Order[] | StreamedArray {
    return this.#orders.list();
  }

  cancelOrder(orderId: number): Promise<CancelOutcome> {
    return this.#orders.cancel(orderId);
  }

  enqueueMessage(message: NewMessage): Promise<Message> {
    return this.#messages.enqueue(message);
  }

  enqueueMessageOnce(message: NewMessage, idempotency: IdempotencyKey): Promise<IdempotentOutcome> {
    return this.#messages.enqueueOnce(message, idempotency);
  }

  findPet(petId: number): Pet | undefined {
    return this.#pets.find(petId);
  }

  findActiveKey(digest: Buffer): ActiveKey | undefined {
    return this.#accounts.findActiveKey(digest);
  }

  isReady(): boolean {
    return this.#ping.get()?.ok === 1;
  }

  countOrdersByStatus(): Record<OrderStatus, number> {
    return this.#orders.countByStatus();
  }

  countQueuedMessages(): number {
    return this.#messages.countQueued();
  }

  recordDeprecatedCalls(calls: readonly DeprecatedCalls[]): void {
    this.#deprecatedCalls.record(calls);
  }

  close(): void {
    this.#orders.close();
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
    return this.#accounts.create(name);
  }

  findAccount(name: string): Account | undefined {
    return this.#accounts.find(name);
  }

  createKey(accountId: number, digest: Buffer, displayPrefix: string): KeyListing {
    return this.#accounts.createKey(accountId, digest, displayPrefix);
  }

  listKeys(): KeyListing[] {
    return this.#accounts.listKeys();
  }

  revokeKeyById(keyId: number): RevokeOutcome {
    return this.#accounts.revokeKeyById(keyId);
  }

  revokeKeyByDigest(digest: Buffer): RevokeOutcome {
    return this.#accounts.revokeKeyByDigest(digest);
  }

  addOrder(order: NewOrder): StoredOrder {
    return this.#orders.add(order);
  }

  importOrders(orders: NewOrder[]): number {
    return this.#orders.addAll(orders);
  }

  shipOrder(orderId: number): ShipOutcome {
    return this.#orders.ship(orderId);
  }

  findOrder(orderId: number): StoredOrder | undefined {
    return this.#orders.find(orderId);
  }

  listAllOrders(): StoredOrder[] {
    return this.#orders.listAll();
  }

  addPet(name: string): Pet {
    return this.#pets.add(name);
  }

  listMessages(): StoredMessage[] {
    return this.#messages.list();
  }

  listDeprecatedCalls(): DeprecatedCallListing[] {
    return this.#deprecatedCalls.list();
  }

  backup(file: string): Promise<BackupOutcome> {
    return backupInto(this.#db, file);
  }
}
