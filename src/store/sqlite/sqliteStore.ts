// The better-sqlite3 store: one connection shared by a module per aggregate. Every statement is prepared
// once; every write transaction is IMMEDIATE. The modules are synchronous; the seam (store.ts) is async,
// and every call's SQLite failures leave it as the store's own (errors.ts).
import type Database from 'better-sqlite3';
import type {
  AdminStore,
  KeyAdmin,
  KeyStore,
  MessageAdmin,
  MessageStore,
  OrderAdmin,
  OrderStore,
  PetAdmin,
  PetStore,
  TelemetryAdmin,
  TelemetryStore,
} from '../store.js';
import { Accounts } from './accounts.js';
import { backupInto } from './backup.js';
import { Connection } from './connection.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { guarded } from './errors.js';
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
  readonly backend = 'sqlite';
  readonly orders: OrderStore & OrderAdmin;
  readonly pets: PetStore & PetAdmin;
  readonly messages: MessageStore & MessageAdmin;
  readonly keys: KeyStore & KeyAdmin;
  readonly telemetry: TelemetryStore & TelemetryAdmin;
  readonly #db: Database.Database;
  readonly #ping;
  readonly #orders: Orders;

  constructor(
    db: Database.Database,
    { now, writeWaitMs, ...lists }: { now: () => Date; writeWaitMs: number } & OrderListOptions,
  ) {
    const connection = new Connection(db, now, writeWaitMs);
    const orders = new Orders(connection, lists);
    const messages = new Messages(connection);
    const accounts = new Accounts(connection);
    const pets = new Pets(connection);
    const deprecatedCalls = new DeprecatedCallLog(db);
    this.#db = db;
    this.#ping = db.prepare<[], { ok: number }>(`SELECT 1 AS ok`);
    this.#orders = orders;
    this.orders = {
      listOrders: () => guarded(() => orders.list()),
      listOrderPage: (query) => guarded(() => orders.page(query)),
      cancelOrder: (orderId) => guarded(() => orders.cancel(orderId)),
      addOrder: (order) => guarded(() => orders.add(order)),
      importOrders: (all) => guarded(() => orders.addAll(all)),
      shipOrder: (orderId) => guarded(() => orders.ship(orderId)),
      findOrder: (orderId) => guarded(() => orders.find(orderId)),
      listAllOrders: (filter) => guarded(() => orders.listAll(filter)),
    };
    this.pets = {
      findPet: (petId) => guarded(() => pets.find(petId)),
      addPet: (name) => guarded(() => pets.add(name)),
    };
    this.messages = {
      enqueueMessage: (message) => guarded(() => messages.enqueue(message)),
      enqueueMessageOnce: (message, idempotency) => guarded(() => messages.enqueueOnce(message, idempotency)),
      listMessages: () => guarded(() => messages.list()),
    };
    this.keys = {
      findActiveKey: (digest) => guarded(() => accounts.findActiveKey(digest)),
      createAccount: (name) => guarded(() => accounts.create(name)),
      findAccount: (name) => guarded(() => accounts.find(name)),
      createKey: (accountId, digest, prefix) => guarded(() => accounts.createKey(accountId, digest, prefix)),
      listKeys: () => guarded(() => accounts.listKeys()),
      revokeKeyById: (keyId) => guarded(() => accounts.revokeKeyById(keyId)),
      revokeKeyByDigest: (digest) => guarded(() => accounts.revokeKeyByDigest(digest)),
    };
    this.telemetry = {
      countOrdersByStatus: () => guarded(() => orders.countByStatus()),
      countQueuedMessages: () => guarded(() => messages.countQueued()),
      recordDeprecatedCalls: (calls) => guarded(() => deprecatedCalls.record(calls)),
      listDeprecatedCalls: () => guarded(() => deprecatedCalls.list()),
    };
  }

  isReady(): Promise<boolean> {
    return guarded(() => this.#ping.get()?.ok === 1);
  }

  close(): Promise<void> {
    this.#orders.close();
    this.#db.close();
    return Promise.resolve();
  }

  /** The durability settings as SQLite reads them back, for the start-up log line. */
  describe(): { backend: 'sqlite'; file: string; journalMode: string; synchronous: string; writable: boolean } {
    const level = this.#db.pragma('synchronous', { simple: true }) as number;
    return {
      backend: 'sqlite',
      file: this.#db.name,
      journalMode: this.#db.pragma('journal_mode', { simple: true }) as string,
      synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level),
      writable: isWritable(this.#db.name),
    };
  }

  backup(file: string) {
    return backupInto(this.#db, file);
  }
}
