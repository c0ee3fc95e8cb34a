// The Idempotency-Keys of this process's writes not yet committed. A second request with the same key
// answers `in_flight` at once instead of queueing behind the first; across processes, the database's own
// rule decides (a retry that finds the committed key replays it).
import type { IdempotentOutcome } from './store.js';

export class KeysInFlight {
  readonly #keys = new Set<string>();

  async run(accountId: number, key: string, write: () => Promise<IdempotentOutcome>): Promise<IdempotentOutcome> {
    const inFlight = `${accountId} ${key}`;
    if (this.#keys.has(inFlight)) return { outcome: 'in_flight' };
    this.#keys.add(inFlight);
    try {
      return await write();
    } finally {
      this.#keys.delete(inFlight);
    }
  }
}
