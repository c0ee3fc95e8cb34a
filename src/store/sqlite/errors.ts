// SQLite's failures that pass, as the store's own error: another process's lock, or a disk that is full,
// read-only or failing. Nothing of the call was written. Anything else (a corrupt file, a bug) is left as
// it was thrown.
import { StoreUnavailableError } from '../unavailable.js';

const STORAGE = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];

export function storeErrorFor(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreUnavailableError('busy', 'the database is locked by another writer', 1, { cause: error });
  }
  if (STORAGE.some((prefix) => code.startsWith(prefix))) {
    return new StoreUnavailableError('storage', 'the database cannot be written to', 5, { cause: error });
  }
  return error;
}
