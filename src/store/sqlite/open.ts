// Opens the SQLite file with the durability settings the service promises, and brings its schema up to date.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { SynchronousMode } from '../../config.js';
import { MIGRATIONS } from './migrations.js';

export const BUSY_TIMEOUT_MS = 5000;
const SYNCHRONOUS_LEVELS: Record<SynchronousMode, number> = { NORMAL: 1, FULL: 2, EXTRA: 3 };

export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

export interface OpenOptions {
  synchronous: SynchronousMode;
}

export function openDatabase(path: string, { synchronous }: OpenOptions): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
    migrate(db, path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function synchronousLevel(db: Database.Database): number {
  return db.pragma('synchronous', { simple: true }) as number;
}

function migrate(db: Database.Database, path: string): void {
  const apply = db.transaction(() => {
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
  });
  // IMMEDIATE: a server and a CLI starting together must not both try to migrate.
  apply.immediate();
}
