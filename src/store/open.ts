// The one way to a store: DATABASE_URL picks the backend. The server, the CLI, the bench and the tests all
// open theirs here.
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
  /** How many long (streamed) order lists may be read at once. */
  maxStreamedLists?: number;
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove?: number;
  now?: () => Date;
}

/** Async, as opening PostgreSQL will be; a failure to open rejects. */
export function openStore(database: DatabaseLocation, options: StoreOptions = {}): Promise<AdminStore> {
  return Promise.resolve().then(() => {
    if (database.kind === 'sqlite') {
      return openSqliteStore(database.path, { ...options, synchronous: options.synchronous ?? 'FULL' });
    }
    // The seam is ready for it; the backend itself is not in this build yet.
    throw new Error('this build has no PostgreSQL backend yet; give DATABASE_URL a SQLite file');
  });
}
