// The one way to a store: DATABASE_URL picks the backend. The server, the CLI, the bench and the tests all
// open theirs here. PostgreSQL's driver is loaded only when a postgres:// URL asks for it.
import type { DatabaseLocation } from '../databaseUrl.js';
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
  /** PostgreSQL: the most connections this process keeps. */
  poolSize?: number;
  /** How many long (streamed) order lists may be read at once. */
  maxStreamedLists?: number;
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove?: number;
  now?: () => Date;
}

export async function openStore(database: DatabaseLocation, options: StoreOptions = {}): Promise<AdminStore> {
  if (database.kind === 'sqlite') {
    return openSqliteStore(database.path, { ...options, synchronous: options.synchronous ?? 'FULL' });
  }
  const { openPostgresStore } = await import('./postgres/postgresStore.js');
  return openPostgresStore(database.url, { ...options, poolSize: options.poolSize ?? 10 });
}
