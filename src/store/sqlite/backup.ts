// An online backup of the open database into a new file, while the server goes on serving. SQLite's backup
// API copies the pages of one read snapshot, so the copy is consistent, and complete in its one file: the
// copy is written in rollback-journal mode, so it has no -wal of its own to carry.
import { chmodSync, closeSync, fsyncSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { BackupOutcome } from '../store.js';

/**
 * Every page in one step, in one read transaction. Copied in several steps, the backup would start over
 * each time another process (the server) writes in between, which under steady writes may be forever.
 * In WAL mode that read transaction does not hold up the server's writes.
 */
const ALL_PAGES = 0x7fffffff;

export async function backupInto(db: Database.Database, file: string): Promise<BackupOutcome> {
  // Written beside `file` under a name of its own, then linked into place: a file that is already there
  // is never overwritten (the link fails), and `file` never exists half-written.
  const partial = join(dirname(file), `.${basename(file)}.${process.pid}.partial`);
  try {
    await db.backup(partial, { progress: () => ALL_PAGES });
    // The copy holds what the database holds (key digests, messages): no more readable than it.
    chmodSync(partial, statSync(db.name).mode & 0o777);
    try {
      linkSync(partial, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
      throw error;
    }
    syncFolder(dirname(file));
    return 'written';
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Makes the new name itself durable: SQLite synced the file's content, not the folder entry. */
function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
