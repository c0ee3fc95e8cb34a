// Who still calls deprecated operations: counted in memory per operation and account, and written to the
// store in one transaction every few seconds and at close, instead of one write per request.
import type { DeprecatedCalls, TelemetryStore } from '../store/store.js';

export class DeprecatedCallLog {
  readonly #store: Pick<TelemetryStore, 'recordDeprecatedCalls'>;
  /** Keyed by operationId and account id. */
  #pending = new Map<string, DeprecatedCalls>();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<TelemetryStore, 'recordDeprecatedCalls'>) {
    this.#store = store;
  }

  record(operationId: string, accountId: number, at: Date): void {
    const time = at.toISOString();
    this.#add({ operationId, accountId, firstCallAt: time, lastCallAt: time, count: 1 });
  }

  /**
   * Writes what was counted since the last flush. If the write fails (the database is busy past its
   * timeout), the counts go back into memory for the next flush and the error is thrown to the caller.
   */
  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await this.#store.recordDeprecatedCalls([...batch.values()]);
    } catch (error) {
      for (const calls of batch.values()) this.#add(calls);
      throw error;
    }
  }

  /** Flushes every `intervalMs`; `onError` hears of a flush that failed. The timer never keeps the process up. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => {
      this.flush().catch(onError);
    }, intervalMs).unref();
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  /** Merges `added` into the pending counts: new calls, or those of a write that failed. */
  #add(added: DeprecatedCalls): void {
    const key = `${added.operationId} ${added.accountId}`;
    const calls = this.#pending.get(key);
    if (!calls) {
      this.#pending.set(key, added);
      return;
    }
    calls.count += added.count;
    if (added.firstCallAt < calls.firstCallAt) calls.firstCallAt = added.firstCallAt;
    if (added.lastCallAt > calls.lastCallAt) calls.lastCallAt = added.lastCallAt;
  }
}
