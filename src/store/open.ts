// The one way to a store: DATABASE_URL picks the backend. The server, the CLI, the bench and the tests all
// open theirs here.
import type { DatabaseLocation } from '../databaseUrl.js';
import type { MigrationListener } from './migrations.js';
import type { SynchronousMode } from './sqlite/open.js';
import { openSqliteStore } from './sqlite/sqliteStore.js';
import type { AdminStore } from './store.js';

export interface StoreOptions {
  /** SQLite: how each commit reaches the disk. */
  synchronous?: SynchronousMode;
  /** SQLite: how long a statement blocks the thread waiting for another process's lock. */
  busyTimeoutMs?: number;
  /** SQLite: how long a write waits for another process's write lock before it fails (503). */
  writeWaitMs?: number;
  /** SQLite: false (the server's rule, and every command but `init`): a missing file is an error. */
  create?: boolean;
  /** PostgreSQL: the connections this process may hold for requests. */
  poolSize?: number;
  /**
   * PostgreSQL: how long a statement, or a long list's next rows, may go unanswered before it fails (503).
   * Unset: no limit (the CLI's commands; the server sets DATABASE_QUERY_TIMEOUT_MS).
   */
  queryTimeoutMs?: number;
  /** How many long (streamed) order lists may be read at once. */
  maxStreamedLists?: number;
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove?: number;
  now?: () => Date;
  /** Told of each schema migration applied as the store opens (none when it is up to date), in order. */
  onMigrated?: MigrationListener;
}

/** Opens the store and brings its schema up to date; a failure to open rejects. */
export async function openStore(database: DatabaseLocation, options: StoreOptions = {}): Promise<AdminStore> {
  if (database.kind === 'sqlite') {
    return openSqliteStore(database.path, { ...options, synchronous: options.synchronous ?? 'FULL' });
  }
  // Loaded only when asked for: a server on SQLite never loads the PostgreSQL driver.
  const { openPostgresStore } = await import('./postgres/postgresStore.js');
  return openPostgresStore(database.url, options);
}
