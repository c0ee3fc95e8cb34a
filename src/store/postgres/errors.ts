// PostgreSQL's failures that pass, as the store's own error: the server unreachable, restarting or out of
// connections, a full pool, a lock or statement time-out, a disk that is full or read-only. Nothing of the
// call was committed. Anything else (a constraint, a bug) is left as it was thrown.
import { StoreUnavailableError } from '../unavailable.js';

/** SQLSTATE classes and codes (PostgreSQL's appendix A) that a retry may get past. */
const BUSY_STATES = [
  '08', // connection exception
  '40001', // serialization failure
  '40P01', // deadlock detected
  '53300', // too many connections
  '55P03', // lock not available (lock_timeout)
  '57014', // query canceled (statement_timeout)
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, shutting down, in recovery)
];
const STORAGE_STATES = [
  '25006', // read-only SQL transaction (a standby, or default_transaction_read_only)
  '53100', // disk full
  '58', // system error (I/O)
];
/** What node-postgres and the socket say when the connection is gone or the pool has none to give. */
const BUSY_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout)/;
const BUSY_ERRNO = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];

export function storeErrorFor(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const state = typeof code === 'string' ? code : '';
  if (STORAGE_STATES.some((prefix) => state.startsWith(prefix))) {
    return new StoreUnavailableError('storage', 'the database cannot be written to', 5, { cause: error });
  }
  if (
    (state.length === 5 && BUSY_STATES.some((prefix) => state.startsWith(prefix))) ||
    BUSY_ERRNO.includes(state) ||
    BUSY_MESSAGES.test(error.message)
  ) {
    return new StoreUnavailableError('busy', 'the database is unavailable or busy', 1, { cause: error });
  }
  return error;
}
