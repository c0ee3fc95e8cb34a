// The two request quotas around authentication: failed attempts per client address (against key guessing),
// then requests per key. Both are keyed by what the server resolved, the address or the key's id, never by
// the Authorization text, so no spelling of the header gets a fresh quota.
import type { RateLimits } from '../config.js';
import type { ErrorAnswer } from '../contract/errorBody.js';
import { FixedWindowQuota, tooManyRequests } from './rateLimit.js';

/** Where a key's quota stands: headers for every answer to the key, and the refusal once it is spent. */
export interface KeyUsage {
  headers: Record<string, string> | undefined;
  refusal: ErrorAnswer<429> | undefined;
}

const UNCOUNTED: KeyUsage = { headers: undefined, refusal: undefined };

export class RequestQuotas {
  readonly #authFailures: FixedWindowQuota;
  readonly #perKey: FixedWindowQuota;

  /** `now` is a test's clock; the real one is read as Date.now, without a Date per reading. */
  constructor(limits: RateLimits, now?: () => Date) {
    const nowMs = now ? () => now().getTime() : Date.now;
    this.#authFailures = new FixedWindowQuota(
      'auth-failures',
      limits.authFailuresPerAddress,
      limits.windowSeconds,
      nowMs,
    );
    this.#perKey = new FixedWindowQuota('per-key', limits.requestsPerKey, limits.windowSeconds, nowMs);
  }

  /** An address that failed authentication too often is refused before its key is even looked at. */
  refuseAddress(address: string): ErrorAnswer<429> | undefined {
    if (!this.#authFailures.enabled) return undefined;
    const state = this.#authFailures.peek(address);
    if (state.allowed) return undefined;
    return tooManyRequests(state, 'Too many failed authentications from this address; retry later');
  }

  authenticationFailed(address: string): void {
    if (this.#authFailures.enabled) this.#authFailures.hit(address);
  }

  /** Counts one request against its key. */
  countKey(keyId: number): KeyUsage {
    if (!this.#perKey.enabled) return UNCOUNTED;
    const state = this.#perKey.hit(keyId);
    if (state.allowed) return { headers: state.headers, refusal: undefined };
    return { headers: state.headers, refusal: tooManyRequests(state, 'Too many requests for this API key; retry later') };
  }
}
