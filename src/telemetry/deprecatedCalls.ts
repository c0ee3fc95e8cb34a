// Who still calls deprecated operations: counted in memory per operation and account, and written to the
// store in one transaction every few seconds and at close, instead of one write per request.
import type { DeprecatedCalls, Store } from '../store/store.js';

export class DeprecatedCallLog {
  readonly #store: Pick<Store, 'recordDeprecatedCalls'>;
  /** Keyed by operationId and account id. */
  #pending = new Map<string, DeprecatedCalls>();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<Store, 'recordDeprecatedCalls'>) {
    this.#store = store;
  }

  record(operationId: string, accountId: number, at: Date): void {
    const key = `${operationId} ${accountId}`;
    const time = at.toISOString();
    const calls = this.#pending.get(key);
    if (calls) {
      calls.count++;
      if (time > calls.lastCallAt) calls.lastCallAt = time;
      if (time < calls.firstCallAt) calls.firstCallAt = time;
    } else {
      this.#pending.set(key, { operationId, accountId, firstCallAt: time, lastCallAt: time, count: 1 });
    }
  }

  /**
   * Writes what was counted since the last flush. If the write fails (the database is busy past its
   * timeout), the counts stay in memory for the next flush and the error is thrown to the caller.
   */
  flush(): void {
    if (this.#pending.size === 0) return;
    // The write is synchronous, so nothing is recorded while it runs; a failed one leaves the map as it was.
    this.#store.recordDeprecatedCalls([...this.#pending.values()]);
    this.#pending = new Map();
  }

  /** Flushes every `intervalMs`; `onError` hears of a flush that failed. The timer never keeps the process up. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => {
      try {
        this.flush();
      } catch (error) {
        onError(error);
      }
    }, intervalMs).unref();
  }

  /** Stops the timer and writes what is left. */
  close(): void {
    clearInterval(this.#timer);
    this.flush();
  }
}
