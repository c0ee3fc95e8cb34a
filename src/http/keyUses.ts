// A key's last use (`keys list`, lastUsedAt): noted as a request is answered, written in the background, at
// most once per key per KEY_USE_INTERVAL_MS by each process. Never a write on a request's way: a time that
// may be that much behind is what an operator needs to see which keys are still in use.
import type { FastifyBaseLogger } from 'fastify';
import type { KeyStore } from '../store/store.js';

/** How far behind lastUsedAt may be, per server process. */
export const KEY_USE_INTERVAL_MS = 15 * 60_000;
/** Bounds the keys remembered; the memory starts over when full (each key is then written once more). */
const MAX_REMEMBERED_KEYS = 10_000;

export class KeyUses {
  /** When this process last wrote each key's use, in milliseconds since the epoch. */
  readonly #written = new Map<number, number>();
  #pending: number[] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(
    readonly keys: Pick<KeyStore, 'recordKeyUses'>,
    readonly log: Pick<FastifyBaseLogger, 'warn'>,
    readonly now: () => Date,
    readonly intervalMs = KEY_USE_INTERVAL_MS,
  ) {}

  /** Notes that the key `keyId` was used by a request answered now. */
  used(keyId: number): void {
    const now = this.now().getTime();
    const written = this.#written.get(keyId);
    if (written !== undefined && now - written < this.intervalMs) return;
    if (this.#written.size >= MAX_REMEMBERED_KEYS) this.#written.clear();
    this.#written.set(keyId, now);
    // After the turn that answers: the uses of one turn are one write.
    if (this.#pending.length === 0) setImmediate(() => this.#write());
    this.#pending.push(keyId);
  }

  /** Resolves once every use noted so far is written (or failed to be): as the server stops. */
  flush(): Promise<void> {
    if (this.#pending.length > 0) this.#write();
    return this.#writing;
  }

  #write(): void {
    const keyIds = this.#pending;
    if (keyIds.length === 0) return;
    this.#pending = [];
    this.#writing = this.keys.recordKeyUses(keyIds, this.now().toISOString()).catch((error: unknown) => {
      // Written at the keys' next use instead.
      for (const keyId of keyIds) this.#written.delete(keyId);
      this.log.warn({ err: error }, 'the last use of API keys could not be written; it will be at their next use');
    });
  }
}
