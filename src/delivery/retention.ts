// Delivered and failed messages are deleted once they are older than the retention (the time since their
// status was set), and the accounts' events and their attempts once older than theirs, in small batches,
// each a write of its own with a pause after it, so that requests' writes go on in between. Every server
// sweeps, now and then; batches from several never wait for each other.
// The Idempotency-Keys keep their own day (store/compose.ts purges them), which retention never shortens:
// it is at least a day, counted from later than the key's.
import type { DeliveryStore, EventDeliveryStore } from '../store/store.js';
import type { DeliveryLog } from './ports.js';

/** What one retention deletes: up to `limit` of its records from before `before`, answering how many. */
export interface Sweep {
  what: string;
  deleteBefore(before: string, limit: number): Promise<number>;
}

export const messageSweep = (store: DeliveryStore): Sweep => ({
  what: 'messages',
  deleteBefore: (before, limit) => store.deleteSettledMessages(before, limit),
});

export const eventSweep = (store: EventDeliveryStore): Sweep => ({
  what: 'webhook events and attempts',
  deleteBefore: (before, limit) => store.deleteEventsBefore(before, limit),
});

export interface RetentionOptions {
  /** How often a sweep starts. */
  everyMs?: number;
  /** Records deleted by one statement at most. */
  batch?: number;
  now?: () => Date;
}

const SWEEP_EVERY_MS = 60_000;
const BATCH = 200;
/** Between two batches of one sweep. */
const PAUSE_MS = 20;

export class Retention {
  readonly #sweep: Sweep;
  readonly #retentionMs: number;
  readonly #log: DeliveryLog;
  readonly #everyMs: number;
  readonly #batch: number;
  readonly #now: () => Date;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | undefined;
  #stopped = false;

  constructor(sweep: Sweep, retentionMs: number, log: DeliveryLog, options: RetentionOptions = {}) {
    this.#sweep = sweep;
    this.#retentionMs = retentionMs;
    this.#log = log;
    this.#everyMs = options.everyMs ?? SWEEP_EVERY_MS;
    this.#batch = options.batch ?? BATCH;
    this.#now = options.now ?? (() => new Date());
  }

  start(): void {
    this.#timer = setInterval(() => void this.sweep(), this.#everyMs);
    this.#timer.unref();
  }

  /** Deletes what is past the retention, batch after batch; resolves with how many. One sweep at a time. */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#deleteAll().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  async #deleteAll(): Promise<number> {
    const before = new Date(this.#now().getTime() - this.#retentionMs).toISOString();
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.#sweep.deleteBefore(before, this.#batch);
        total += deleted;
        if (deleted < this.#batch || this.#stopped) return total;
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    } catch (error) {
      this.#log.error({ err: error }, `could not delete the ${this.#sweep.what} past their retention; trying again later`);
      return total;
    }
  }
}
