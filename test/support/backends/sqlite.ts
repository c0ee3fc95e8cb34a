// SQLite's entry in the tests' table of backends (storeBackends.ts): a file in the test's own folder, and
// what the tests read and write in it past the store, through the driver itself. The one module of test/,
// besides SQLite's own tests, that knows the backend's internals.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../../../src/store/open.js';
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
    outline: () =>
      onFile(
        path,
        (db) => {
          const objects = db.prepare(`SELECT type, name, sql FROM sqlite_schema`).all() as { type: string; name: string; sql: string | null }[];
          return [
            `user_version ${db.pragma('user_version', { simple: true }) as number}`,
            ...objects.map(({ type, name, sql }) => `${type} ${name}: ${sql ?? ''}`),
            ...objects
              .filter(({ type }) => type === 'table')
              .map(({ name }) => `rows of ${name}: ${db.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number}`),
          ].sort();
        },
        true,
      ),
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

/** The bytes of a new database, migrated by a store in this process: made once, then copied for each test. */
let migratedFile: Promise<Buffer> | undefined;

function migrated(): Promise<Buffer> {
  migratedFile ??= migrateNewFile().catch((error: unknown) => {
    migratedFile = undefined;
    throw error;
  });
  return migratedFile;
}

async function migrateNewFile(): Promise<Buffer> {
  const folder = mkdtempSync(join(tmpdir(), 'store-orders-migrated-'));
  try {
    const path = join(folder, 'store.db');
    await (await openStore({ kind: 'sqlite', path }, { create: true })).close();
    // Closing the last connection checkpointed the write-ahead log into the file, and removed the log: the
    // file alone is the whole database, in WAL mode (which its header keeps).
    if (existsSync(`${path}-wal`)) throw new Error(`${path}-wal is left after the store closed`);
    return readFileSync(path);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Gives a copied database an identity of its own, as migration 4 gave the one it was copied from. */
const NEW_IDENTITY = `UPDATE order_list_version SET database_id = lower(hex(randomblob(8)))`;

export const sqliteTests: TestBackend<SqliteLocation> & SqliteOnly = {
  async create(folder, schema) {
    const path = join(folder, 'store.db');
    if (schema === 'latest') {
      writeFileSync(path, await migrated());
      await onFile(path, (db) => void db.exec(NEW_IDENTITY));
    }
    // The file goes with the test's folder.
    return { location: { kind: 'sqlite', path }, drop: () => Promise.resolve() };
  },
  pastTheStore,
  migrations: { latest: MIGRATIONS.length, shipDateRange: 5 },
  pageDialect,
  indexRead: /^SEARCH orders USING (COVERING )?INDEX /,
  sharedQuotas: false,
  rowsPerTurn: ROWS_PER_TURN,
  storeErrorFor,
  journalSizeLimitBytes: JOURNAL_SIZE_LIMIT_BYTES,
};
