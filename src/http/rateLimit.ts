// Fixed-window quotas, and the RateLimit / RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers-10.
// Counters live in this process's memory: they start over on restart, and each server process counts alone.
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';

/** Bounds memory against a flood of distinct keys or addresses; see `hit` for what happens beyond it. */
const MAX_TRACKED = 100_000;

export interface QuotaState {
  allowed: boolean;
  headers: Record<string, string>;
}

/** A refusal-free peek: it carries no fields, since nobody sends them. */
const ALLOWED: QuotaState = Object.freeze({ allowed: true, headers: Object.freeze({}) });

export class FixedWindowQuota {
  #windowIndex = -1;
  #counts = new Map<string | number, number>();
  /** The same on every answer, so written once. */
  readonly #policyField: string;

  /** `limit` 0 turns the quota off. */
  constructor(
    readonly policy: string,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.#policyField = `"${policy}";q=${limit};w=${windowSeconds}`;
  }

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Counts one request against `partition` and says whether it is within the quota. */
  hit(partition: string | number): QuotaState {
    const nowMs = this.nowMs();
    const used = this.#used(partition, nowMs) + 1;
    // When the table is full, a new partition is not counted: one flood must not lock everyone else out.
    if (this.#counts.has(partition) || this.#counts.size < MAX_TRACKED) this.#counts.set(partition, used);
    return this.#state(used, used <= this.limit, nowMs);
  }

  /**
   * Whether one more request of `partition` would be within the quota, without counting it. Its fields
   * are filled in only when it would not be.
   */
  peek(partition: string | number): QuotaState {
    const nowMs = this.nowMs();
    const used = this.#used(partition, nowMs);
    return used < this.limit ? ALLOWED : this.#state(used, false, nowMs);
  }

  #used(partition: string | number, nowMs: number): number {
    const windowIndex = Math.floor(nowMs / (this.windowSeconds * 1000));
    if (windowIndex !== this.#windowIndex) {
      this.#windowIndex = windowIndex;
      this.#counts = new Map();
    }
    return this.#counts.get(partition) ?? 0;
  }

  #state(used: number, allowed: boolean, nowMs: number): QuotaState {
    const windowMs = this.windowSeconds * 1000;
    const resetSeconds = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
    const remaining = Math.max(0, this.limit - used);
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.#policyField,
      RateLimit: `"${this.policy}";r=${remaining};t=${resetSeconds}`,
    };
    if (allowed) return { allowed: true, headers };
    return { allowed: false, headers: { ...headers, 'Retry-After': String(resetSeconds) } };
  }
}

export function tooManyRequests(state: QuotaState, message: string): ErrorAnswer<429> {
  return apiError('too_many_requests', message, state.headers);
}
