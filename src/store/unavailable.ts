// The one error a store raises for a failure that passes, whatever its backend; serving/errors.ts answers it
// 503 with Retry-After.

/**
 * A failure that passes: the database is busy, unreachable, restarting or out of room. Nothing of the
 * request was written; the client may retry after `retryAfterSeconds`. Anything else a store throws is a
 * bug (500).
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  constructor(
    /** `busy`: locks, a full pool, a lost connection; `storage`: the disk is full, read-only or failing. */
    readonly reason: 'busy' | 'storage',
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
