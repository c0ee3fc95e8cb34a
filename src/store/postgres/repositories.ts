// The PostgreSQL store: one pool of connections shared by a repository per aggregate, and a pool of its own
// for long lists. Every statement is parameterised and unnamed (so PgBouncer's transaction mode works);
// every write is one statement, or one function's or procedure's transaction, committed before it settles.
import pg from 'pg';
import type { OpenOptions, Repositories } from '../backend.js';
import type { MigrationListener } from '../migrations.js';
import { Accounts } from './accounts.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { storeErrorFor } from './errors.js';
import { Messages } from './messages.js';
import { migrate } from './migrations.js';
import { Orders } from './orders.js';
import { OrderListReaders } from './orderStream.js';
import { Pets } from './pets.js';
import { Quotas } from './quotas.js';
import { EventDelivery } from './eventDelivery.js';
import { Webhooks } from './webhooks.js';

export interface PostgresSettings {
  /** Connections to PostgreSQL this process may hold for requests (long lists have their own). */
  poolSize: number;
  /** How long a request waits for a connection of a full pool before it answers 503. */
  connectionWaitMs: number;
  /**
   * How long a statement may go unanswered before it fails (503) and its connection is closed, and how
   * long a long list may wait for its next rows while its reader waits for them. Unset, no limit: the
   * server sets one (DATABASE_QUERY_TIMEOUT_MS), a command none, as an import may rightly take long.
   */
  queryTimeoutMs?: number;
}

/** bigint ids and counts as numbers: ids are issued from 1 up and stay far below 2^53. */
export const TYPES = {
  getTypeParser: ((oid: number, format?: 'text') =>
    oid === (pg.types.builtins.INT8 as number)
      ? Number
      : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
};

/** Probes start after this long at rest, so that a connection whose host is gone is noticed by the system. */
const KEEP_ALIVE_AFTER_MS = 10_000;

/** How every connection of the store is made; `connectionWaitMs` bounds the wait for one. */
export function connectionConfig(url: string, connectionWaitMs: number): pg.PoolConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: connectionWaitMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_AFTER_MS,
    types: TYPES,
  };
}

/**
 * How long a write may take in PostgreSQL before it gives up with nothing written (migration 5): a quarter
 * below the client-side bound, which leaves that quarter for the commit and the answer to come back, so
 * that the server never answers 503 for a write the database goes on to commit. None without a bound.
 */
export function writeBudgetMs(queryTimeoutMs: number | undefined): number | null {
  return queryTimeoutMs === undefined ? null : Math.floor((queryTimeoutMs * 3) / 4);
}

export async function openRepositories(url: string, settings: PostgresSettings, options: OpenOptions): Promise<Repositories> {
  const { queryTimeoutMs } = settings;
  const config = connectionConfig(url, settings.connectionWaitMs);
  // A database that stops answering without closing the socket (a stopped process, a partition) would hold
  // a request on its connection for as long: past `query_timeout` the statement fails ("Query read
  // timeout", 503) and the pool closes that connection rather than hand it out again mid-statement. Only
  // here: a long list's COPY waits for its reader, not on a clock (orderStream.ts), and a migration may
  // rightly take long.
  const pool = new pg.Pool({
    ...config,
    ...(queryTimeoutMs !== undefined && { query_timeout: queryTimeoutMs }),
    max: settings.poolSize,
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
    const readers = new OrderListReaders(config, options.maxStreamedLists, queryTimeoutMs);
    const described = {
      backend: 'postgres',
      serverVersion: identity.version,
      poolSize: String(settings.poolSize),
      writable: identity.read_only === 'off',
    };
    return repositories(pool, readers, identity.database_id, writeBudgetMs(queryTimeoutMs), options, described);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

function repositories(
  pool: pg.Pool,
  readers: OrderListReaders,
  databaseId: string,
  writeBudget: number | null,
  options: OpenOptions,
  described: Record<string, string | boolean>,
): Repositories {
  const now = () => options.now().toISOString();
  const { streamOrdersAbove } = options;
  return {
    orders: new Orders(pool, readers, now, databaseId, { streamOrdersAbove, writeBudgetMs: writeBudget }),
    pets: new Pets(pool, now),
    messages: new Messages(pool, writeBudget, now),
    keys: new Accounts(pool, now),
    webhooks: new Webhooks(pool),
    eventDelivery: new EventDelivery(pool),
    deprecatedCalls: new DeprecatedCallLog(pool),
    quotas: new Quotas(pool, writeBudget),
    storeErrorFor,
    isReady: () => pool.query(`SELECT 1`).then(
      () => true,
      () => false,
    ),
    /** Once: closing again changes nothing. */
    close: async () => {
      if (pool.ending) return;
      await Promise.all([readers.close(), pool.end()]);
    },
    describe: () => described,
  };
}

/** On a connection of its own, without the requests' time-out: waiting for another server's migration counts. */
export async function migrateOnce(config: pg.PoolConfig, onMigrated: MigrationListener | undefined): Promise<void> {
  const pool = new pg.Pool({ ...config, max: 1 });
  pool.on('error', () => {});
  try {
    await migrate(pool, onMigrated);
  } finally {
    await pool.end();
  }
}
