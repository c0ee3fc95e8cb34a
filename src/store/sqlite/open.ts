// Opens the SQLite file with the durability settings the service promises, and brings its schema up to date.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type MigrationListener, reportMigrations } from '../migrations.js';
import { MIGRATIONS } from './migrations.js';
import { SYNCHRONOUS_LEVELS, type SynchronousMode } from './settings.js';

/**
 * A reader that holds a snapshot (a streamed list) keeps the write-ahead log from being reset, so it grows
 * meanwhile; SQLite keeps the file at its largest unless told to cut it back when it is next reset.
 */
export const JOURNAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

export interface DatabaseOptions {
  synchronous: SynchronousMode;
  /** How long a statement blocks the thread waiting for another process's lock. */
  busyTimeoutMs: number;
  /** False: a missing file is an error, not a new empty database (the server's rule). */
  create?: boolean;
  /** Told of each schema migration applied, once they are committed. */
  onMigrated?: MigrationListener;
}

export function openDatabase(
  path: string,
  { synchronous, busyTimeoutMs, create = true, onMigrated }: DatabaseOptions,
): Database.Database {
  if (create) mkdirSync(dirname(path), { recursive: true });
  else if (isMissing(path)) {
    throw new DatabaseOpenError(
      `${path} does not exist; create it with \`store-orders init\`, or point DATABASE_URL at the right file`,
    );
  }
  const db = new Database(path, { fileMustExist: !create });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const journalMode = db.pragma('journal_mode = WAL', { simple: true }) as string;
    if (journalMode !== 'wal')
      throw new DatabaseOpenError(`${path}: journal_mode is ${journalMode}, expected wal`);
    // better-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1: once a file is in WAL mode, every
    // new connection silently starts at NORMAL. So synchronous is set after journal_mode, and read back.
    db.pragma(`synchronous = ${synchronous}`);
    const level = db.pragma('synchronous', { simple: true }) as number;
    if (level !== SYNCHRONOUS_LEVELS[synchronous]) {
      throw new DatabaseOpenError(`${path}: synchronous reads back ${level}, expected ${synchronous}`);
    }
    db.pragma('foreign_keys = ON');
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
    migrate(db, path, onMigrated);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function synchronousLevel(db: Database.Database): number {
  return db.pragma('synchronous', { simple: true }) as number;
}

/** Only a file that is not there: one that cannot be reached (permissions) is SQLite's to describe. */
function isMissing(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * False when this process may not write the file: SQLite then opens it read-only, reads work and every
 * write fails with SQLITE_READONLY. (Taking the write lock still succeeds, so it cannot tell.)
 */
export function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function migrate(db: Database.Database, path: string, onMigrated: MigrationListener | undefined): void {
  // Read first: an up-to-date file that is read-only can still be served for reads.
  if ((db.pragma('user_version', { simple: true }) as number) === MIGRATIONS.length) return;
  const apply = db.transaction((): number => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new DatabaseOpenError(
        `${path}: schema version ${version} is newer than this build knows (${MIGRATIONS.length}); upgrade store-orders`,
      );
    }
    for (let next = version; next < MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next] as string);
      db.pragma(`user_version = ${next + 1}`);
    }
    return version;
  });
  // IMMEDIATE: a server and a CLI starting together must not both try to migrate.
  const from = apply.immediate();
  // Only now: the migrations are one transaction, and one that fails leaves none of them applied.
  reportMigrations(from, MIGRATIONS.length, onMigrated);
}
