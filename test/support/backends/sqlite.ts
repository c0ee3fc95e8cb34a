// SQLite's entry in the tests' table of backends (storeBackends.ts): a file in the test's own folder, and
// what the tests read and write in it past the store, through the driver itself. The one module of test/,
// besides SQLite's own tests, that knows the backend's internals.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteLocation } from '../../../src/store/sqlite/backend.js';
import { storeErrorFor } from '../../../src/store/sqlite/errors.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { JOURNAL_SIZE_LIMIT_BYTES } from '../../../src/store/sqlite/open.js';
import { ROWS_PER_TURN } from '../../../src/store/sqlite/orderStream.js';
import { pageDialect } from '../../../src/store/sqlite/orders.js';
import type { PastTheStore, Statement, TestBackend } from '../storeBackends.js';

/** Statements on the file through a connection of their own, closed at once; a failure rejects. */
function onFile<T>(path: string, work: (db: Database.Database) => T, readonly = false): Promise<T> {
  return new Promise((resolve) => {
    const db = new Database(path, { readonly });
    try {
      resolve(work(db));
    } finally {
      db.close();
    }
  });
}

// Typed by the path alone: another backend on SQLite's files may take this entry's probes as they are.
function pastTheStore({ path }: { path: string }): PastTheStore {
  return {
    execute: (sql) => onFile(path, (db) => void db.exec(sql)),
    rows: <T extends object>(sql: string, values: readonly unknown[] = []) =>
      onFile(path, (db) => db.prepare(sql).all(...values) as T[], true),
    writeOlderSchema: (version) =>
      onFile(path, (db) => {
        for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
        db.pragma(`user_version = ${version}`);
      }),
    stampSchemaVersion: (version) => onFile(path, (db) => void db.pragma(`user_version = ${version}`)),
    queryPlan: ({ sql, values }: Statement) =>
      onFile(
        path,
        (db) => {
          const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { parent: number; detail: string }[];
          return {
            reads: plan.map(({ detail }) => detail).filter((detail) => /\borders\b/.test(detail)),
            // The arms are merged as they are read, never sorted: only the page's own rows are, at the top.
            sorts: plan.filter(({ parent, detail }) => parent !== 0 && /TEMP B-TREE/.test(detail)).map(({ detail }) => detail),
          };
        },
        true,
      ),
  };
}

/** SQLite's own, beside what every backend's entry gives. */
interface SqliteOnly {
  /** The store's reading of a driver's error: what passes (busy, storage) as StoreUnavailableError. */
  storeErrorFor: (error: unknown) => unknown;
  /** The size the write-ahead log is cut back to once it is reset. */
  journalSizeLimitBytes: number;
}

export const sqliteTests: TestBackend<SqliteLocation> & SqliteOnly = {
  create: (folder) =>
    Promise.resolve({
      location: { kind: 'sqlite', path: join(folder, 'store.db') },
      // The file goes with the test's folder.
      drop: () => Promise.resolve(),
    }),
  pastTheStore,
  migrations: { latest: MIGRATIONS.length, shipDateRange: 5 },
  pageDialect,
  indexRead: /^SEARCH orders USING (COVERING )?INDEX /,
  sharedQuotas: false,
  rowsPerTurn: ROWS_PER_TURN,
  storeErrorFor,
  journalSizeLimitBytes: JOURNAL_SIZE_LIMIT_BYTES,
};
