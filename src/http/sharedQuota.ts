// A fixed-window quota whose count every process of the service shares through the store (store/quotas.ts).
// A process leases blocks of the window's remaining units and admits requests from its block, so the store
// is written only when a block is taken, however fast requests come. A block is a tenth of what is left, so
// the units a process holds unused stay few as the quota runs out. Each process may admit one request of a
// subject per window before its first block comes (the lease is taken meanwhile, and counts it): the
// service admits at most the limit plus one request per process and window.
import type { QuotaStore } from '../store/quotas.js';
import { type QuotaState, windowFields } from './rateLimit.js';

/** Bounds memory against a flood of distinct keys or addresses: beyond it a new subject is not counted. */
const MAX_TRACKED = 100_000;

/** A block is this share of what the limit leaves. */
const BLOCK_SHARE = 0.1;

/** Where one subject stands in this process, in one window. */
interface Standing {
  /** Leased units not yet admitted. */
  units: number;
  /** The window's shared count at the last lease, this process's leased units included. */
  used: number;
  /** Admitted without a lease (the one free request), not yet written to the shared count. */
  spent: number;
  /** The one request this process may admit before its first block. */
  free: boolean;
  /** The shared count reached the limit: no lease will grant more in this window. */
  exhausted: boolean;
  /** Granted or spent in this window by this process, for its share if the store cannot be reached. */
  taken: number;
  /** The store could not be reached in this window: the process admits its share of the quota alone. */
  alone: boolean;
  lastBlock: number;
  refill: Promise<void> | undefined;
}

export class SharedQuota {
  readonly #policyField: string;
  #windowStart = -1;
  #standings = new Map<string, Standing>();
  /** How many processes share the quotas, as the store last said; 1 until it has. */
  #processes = 1;

  /** `limit` 0 turns the quota off. */
  constructor(
    readonly policy: 'per-key' | 'auth-failures',
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly leases: QuotaStore,
    private readonly processId: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.#policyField = `"${policy}";q=${limit};w=${windowSeconds}`;
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Admits one request of `subject`, or refuses it; waits only when this process holds no unit for it. */
  take(subject: string): QuotaState | Promise<QuotaState> {
    const nowMs = this.nowMs();
    const standing = this.#standing(subject, nowMs);
    if (standing === undefined) return this.#state(undefined, true, nowMs);
    if (standing.units > 0) {
      standing.units--;
      // The next block is asked for before this one runs out, so that requests seldom wait for it.
      if (standing.units <= standing.lastBlock / 2) void this.#refill(subject, standing);
      return this.#state(standing, true, nowMs);
    }
    if (standing.exhausted) return this.#state(standing, false, nowMs);
    if (standing.free) {
      standing.free = false;
      standing.spent++;
      standing.taken++;
      void this.#refill(subject, standing);
      return this.#state(standing, true, nowMs);
    }
    return this.#refill(subject, standing).then(() => this.take(subject));
  }

  /**
   * Returns a unit `take` admitted in this window to this process's units, for its next request: the shared
   * count keeps it, so no more are admitted than it counts. A unit of a window past is gone with it.
   */
  giveBack(subject: string): void {
    if (this.#windowOf(this.nowMs()) !== this.#windowStart) return;
    const standing = this.#standings.get(subject);
    if (standing) standing.units++;
  }

  /**
   * Whether `subject` is refused already, counting nothing: its fields are filled in only if it is. One
   * that has spent its units waits for the lease then being taken, which tells whether the window is spent.
   */
  refused(subject: string): QuotaState | undefined | Promise<QuotaState | undefined> {
    const nowMs = this.nowMs();
    if (this.#windowOf(nowMs) !== this.#windowStart) return undefined;
    const standing = this.#standings.get(subject);
    if (standing === undefined || standing.units > 0) return undefined;
    if (standing.exhausted) return this.#state(standing, false, nowMs);
    return standing.refill?.then(() => this.refused(subject));
  }

  /** When the window that holds `nowMs` began: windows are aligned on the clock. */
  #windowOf(nowMs: number): number {
    const windowMs = this.windowSeconds * 1000;
    return Math.floor(nowMs / windowMs) * windowMs;
  }

  #standing(subject: string, nowMs: number): Standing | undefined {
    const windowStart = this.#windowOf(nowMs);
    if (windowStart !== this.#windowStart) {
      this.#windowStart = windowStart;
      this.#standings = new Map();
    }
    let standing = this.#standings.get(subject);
    if (standing === undefined) {
      // When the table is full, a new subject is not counted: one flood must not lock everyone else out.
      if (this.#standings.size >= MAX_TRACKED) return undefined;
      standing = {
        units: 0,
        used: 0,
        spent: 0,
        free: true,
        exhausted: false,
        taken: 0,
        alone: false,
        lastBlock: 0,
        refill: undefined,
      };
      this.#standings.set(subject, standing);
    }
    return standing;
  }

  /** Takes a block for `standing` from the shared count, unless one is being taken already. */
  #refill(subject: string, standing: Standing): Promise<void> {
    if (standing.refill || standing.exhausted) return standing.refill ?? Promise.resolve();
    if (standing.alone) {
      standing.exhausted = true;
      return Promise.resolve();
    }
    const want = Math.max(1, Math.ceil((this.limit - standing.used - standing.spent) * BLOCK_SHARE));
    const spent = standing.spent;
    const request = {
      quota: this.policy,
      subject,
      windowStart: this.#windowStart,
      windowSeconds: this.windowSeconds,
      want,
      spent,
      limit: this.limit,
      processId: this.processId,
    };
    standing.refill = this.leases.lease(request).then(
      ({ granted, used, processes }) => {
        this.#processes = Math.max(1, processes);
        standing.spent -= spent;
        standing.units += granted;
        standing.taken += granted;
        standing.used = used;
        standing.lastBlock = granted;
        if (granted < want) standing.exhausted = true;
        standing.refill = undefined;
      },
      () => {
        // Its share of the quota for the rest of the window, less what it has taken of it already.
        const share = Math.max(1, Math.floor(this.limit / this.#processes));
        standing.alone = true;
        standing.units += Math.max(0, share - standing.taken);
        standing.taken = Math.max(standing.taken, share);
        standing.refill = undefined;
      },
    );
    return standing.refill;
  }

  /** What remains for the whole service: the shared count's remainder, plus this process's unspent units. */
  #state(standing: Standing | undefined, allowed: boolean, nowMs: number): QuotaState {
    const remaining =
      standing === undefined ? this.limit : Math.max(0, this.limit - standing.used - standing.spent) + standing.units;
    return windowFields(this.policy, this.#policyField, allowed ? remaining : 0, allowed, this.windowSeconds, nowMs);
  }
}
