// The PostgreSQL store: one pool of connections shared by a module per aggregate, and a pool of its own
// for long lists. Every statement is parameterised and unnamed (so PgBouncer's transaction mode works);
// every write is one statement, or one function's transaction, committed before it settles.
import pg from 'pg';
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
import type { MigrationListener } from '../migrations.js';
import { Accounts } from './accounts.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { guarded } from './errors.js';
import { Messages } from './messages.js';
import { migrate } from './migrations.js';
import { type OrderListOptions, Orders } from './orders.js';
import { OrderListReaders } from './orderStream.js';
import { Pets } from './pets.js';

export interface PostgresStoreOptions extends Partial<OrderListOptions> {
  /** Connections to PostgreSQL this process may hold for requests (long lists have their own). */
  poolSize?: number;
  /** How long a request waits for a connection of a full pool before it answers 503. */
  connectionWaitMs?: number;
  /**
   * How long a statement may go unanswered before it fails (503) and its connection is closed, and how
   * long a long list may wait for its next rows while its reader waits for them. Unset, no limit: the
   * server sets one (DATABASE_QUERY_TIMEOUT_MS), the CLI none, as an import may rightly take long.
   */
  queryTimeoutMs?: number;
  maxStreamedLists?: number;
  now?: () => Date;
  /** Told of each schema migration this process applied, once they are committed. */
  onMigrated?: MigrationListener;
}

/** bigint ids and counts as numbers: ids are issued from 1 up and stay far below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text') =>
    oid === (pg.types.builtins.INT8 as number)
      ? Number
      : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
};

/** Probes start after this long at rest, so that a connection whose host is gone is noticed by the system. */
const KEEP_ALIVE_AFTER_MS = 10_000;

/**
 * How long a write may take in PostgreSQL before it gives up with nothing written (migration 5): a quarter
 * below the client-side bound, which leaves that quarter for the commit and the answer to come back, so
 * that the server never answers 503 for a write the database goes on to commit. None without a bound.
 */
export function writeBudgetMs(queryTimeoutMs: number | undefined): number | null {
  return queryTimeoutMs === undefined ? null : Math.floor((queryTimeoutMs * 3) / 4);
}

export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const { queryTimeoutMs } = options;
  const config: pg.PoolConfig = {
    connectionString: url,
    connectionTimeoutMillis: options.connectionWaitMs ?? 2_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_AFTER_MS,
    types: TYPES,
  };
  // A database that stops answering without closing the socket (a stopped process, a partition) would hold
  // a request on its connection for as long: past `query_timeout` the statement fails ("Query read
  // timeout", 503) and the pool closes that connection rather than hand it out again mid-statement. Only
  // here: a long list's COPY waits for its reader, not on a clock (orderStream.ts), and a migration may
  // rightly take long.
  const pool = new pg.Pool({
    ...config,
    ...(queryTimeoutMs !== undefined && { query_timeout: queryTimeoutMs }),
    max: options.poolSize ?? 10,
  });
  // An idle connection that the server drops (a restart, a kill) is an event, not a crash: the pool lets it
  // go and opens a new one when asked.
  pool.on('error', () => {});

  try {
    await migrateOnce(config, options.onMigrated);
    const { rows } = await pool.query<{ database_id: string; read_only: string; version: string }>(
      `SELECT database_id, current_setting('transaction_read_only') AS read_only,
         current_setting('server_version') AS version FROM store_identity`,
    );
    const identity = rows[0];
    if (!identity) throw new Error('store_identity is empty');
    const readers = new OrderListReaders(config, options.maxStreamedLists ?? 8, queryTimeoutMs);
    const now = options.now ?? (() => new Date());
    return new PostgresStore(pool, readers, {
      now: () => now().toISOString(),
      writeBudgetMs: writeBudgetMs(queryTimeoutMs),
      databaseId: identity.database_id,
      streamOrdersAbove: options.streamOrdersAbove ?? 10_000,
      settings: {
        serverVersion: identity.version,
        poolSize: String(options.poolSize ?? 10),
        writable: identity.read_only === 'off',
      },
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** On a connection of its own, without the requests' time-out: waiting for another server's migration counts. */
async function migrateOnce(config: pg.PoolConfig, onMigrated: MigrationListener | undefined): Promise<void> {
  const pool = new pg.Pool({ ...config, max: 1 });
  pool.on('error', () => {});
  try {
    await migrate(pool, onMigrated);
  } finally {
    await pool.end();
  }
}

interface Settings {
  serverVersion: string;
  poolSize: string;
  writable: boolean;
}

export class PostgresStore implements AdminStore {
  readonly backend = 'postgres';
  readonly orders: OrderStore & OrderAdmin;
  readonly pets: PetStore & PetAdmin;
  readonly messages: MessageStore & MessageAdmin;
  readonly keys: KeyStore & KeyAdmin;
  readonly telemetry: TelemetryStore & TelemetryAdmin;
  readonly #pool: pg.Pool;
  readonly #readers: OrderListReaders;
  readonly #settings: Settings;

  constructor(
    pool: pg.Pool,
    readers: OrderListReaders,
    { now, writeBudgetMs, databaseId, streamOrdersAbove, settings }: {
      now: () => string;
      writeBudgetMs: number | null;
      databaseId: string;
      streamOrdersAbove: number;
      settings: Settings;
    },
  ) {
    const orders = new Orders(pool, readers, now, databaseId, { streamOrdersAbove, writeBudgetMs });
    const messages = new Messages(pool, writeBudgetMs);
    const accounts = new Accounts(pool, now);
    const pets = new Pets(pool, now);
    const deprecatedCalls = new DeprecatedCallLog(pool);
    this.#pool = pool;
    this.#readers = readers;
    this.#settings = settings;
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
    return this.#pool.query(`SELECT 1`).then(
      () => true,
      () => false,
    );
  }

  /** Once: closing again changes nothing. */
  async close(): Promise<void> {
    if (this.#pool.ending) return;
    await Promise.all([this.#readers.close(), this.#pool.end()]);
  }

  describe(): Record<string, string | boolean> {
    return { backend: 'postgres', ...this.#settings };
  }
}
