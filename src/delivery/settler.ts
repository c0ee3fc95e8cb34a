// Records what came of each attempt, many at a time: the settlements made while the store records the last
// batch go together in the next, one write for all. A batch that fails is tried again, later and later,
// until it is recorded: a message whose answer is not recorded would be sent again once its lease ended.
import type { DeliveryStore, Settlement } from '../store/store.js';
import type { DeliveryLog } from './ports.js';

const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5_000;

interface Pending {
  settlement: Settlement;
  recorded: () => void;
}

export class Settler {
  readonly #store: DeliveryStore;
  readonly #owner: string;
  readonly #log: DeliveryLog;
  #pending: Pending[] = [];
  #writing: Promise<void> | undefined;

  constructor(store: DeliveryStore, owner: string, log: DeliveryLog) {
    this.#store = store;
    this.#owner = owner;
    this.#log = log;
  }

  /** Resolves once the settlement is recorded. */
  settle(settlement: Settlement): Promise<void> {
    return new Promise((recorded) => {
      this.#pending.push({ settlement, recorded });
      this.#writing ??= this.#writeAll().finally(() => {
        this.#writing = undefined;
      });
    });
  }

  /** Resolves once every settlement made so far is recorded. */
  async drained(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #writeAll(): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.#store.settleMessages(this.#owner, batch.map(({ settlement }) => settlement));
        retryMs = FIRST_RETRY_MS;
        for (const { recorded } of batch) recorded();
      } catch (error) {
        this.#log.error({ err: error, messages: batch.length }, 'could not record what came of deliveries; trying again');
        this.#pending = [...batch, ...this.#pending];
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        retryMs = Math.min(retryMs * 2, LONGEST_RETRY_MS);
      }
    }
  }
}
