// The two request quotas around authentication: failed attempts per client address (against key guessing),
// then requests per key. Both are keyed by what the server resolved, the address or the key's id, never by
// the Authorization text, so no spelling of the header gets a fresh quota; both are shared by every process
// on the database (sharedQuota.ts).
import { randomUUID } from 'node:crypto';
import type { RateLimits } from '../config.js';
import type { ErrorAnswer } from '../contract/errorBody.js';
import type { QuotaStore } from '../store/quotas.js';
import { tooManyRequests } from './rateLimit.js';
import { SharedQuota } from './sharedQuota.js';

/** Where a key's quota stands: headers for every answer to the key, and the refusal once it is spent. */
export interface KeyUsage {
  headers: Record<string, string> | undefined;
  refusal: ErrorAnswer<429> | undefined;
}

const UNCOUNTED: KeyUsage = { headers: undefined, refusal: undefined };
const ADDRESS_REFUSED = 'Too many failed authentications from this address; retry later';
const KEY_REFUSED = 'Too many requests for this API key; retry later';

export class RequestQuotas {
  readonly #authFailures: SharedQuota;
  readonly #perKey: SharedQuota;

  /** `now` is a test's clock; the real one is read as Date.now, without a Date per reading. */
  constructor(limits: RateLimits, leases: QuotaStore, now?: () => Date) {
    const nowMs = now ? () => now().getTime() : Date.now;
    // Which process takes leases: the store counts the processes that share the quotas by it.
    const processId = randomUUID();
    const quota = (policy: 'per-key' | 'auth-failures', limit: number) =>
      new SharedQuota(policy, limit, limits.windowSeconds, leases, processId, nowMs);
    this.#authFailures = quota('auth-failures', limits.authFailuresPerAddress);
    this.#perKey = quota('per-key', limits.requestsPerKey);
  }

  /** An address that failed authentication too often is refused before its key is even looked at. */
  refuseAddress(address: string): ErrorAnswer<429> | undefined | Promise<ErrorAnswer<429> | undefined> {
    if (!this.#authFailures.enabled) return undefined;
    const state = this.#authFailures.refused(address);
    if (!(state instanceof Promise)) return state && tooManyRequests(state, ADDRESS_REFUSED);
    return state.then((settled) => settled && tooManyRequests(settled, ADDRESS_REFUSED));
  }

  /**
   * Counts a failed authentication against its address before it is answered: within the quota it is a
   * 401 as usual; past it, a 429, since the address has failed too often.
   */
  authenticationFailed(address: string): ErrorAnswer<429> | undefined | Promise<ErrorAnswer<429> | undefined> {
    if (!this.#authFailures.enabled) return undefined;
    const state = this.#authFailures.take(address);
    if (!(state instanceof Promise)) return state.allowed ? undefined : tooManyRequests(state, ADDRESS_REFUSED);
    return state.then((settled) => (settled.allowed ? undefined : tooManyRequests(settled, ADDRESS_REFUSED)));
  }

  /** Counts one request against its key. */
  countKey(keyId: number): KeyUsage | Promise<KeyUsage> {
    if (!this.#perKey.enabled) return UNCOUNTED;
    const state = this.#perKey.take(String(keyId));
    return state instanceof Promise ? state.then(keyUsage) : keyUsage(state);
  }

  /** Uncounts a request countKey admitted whose key turned out not to be active: it was never the key's. */
  uncountKey(keyId: number): void {
    if (this.#perKey.enabled) this.#perKey.giveBack(String(keyId));
  }
}

function keyUsage({ allowed, headers }: { allowed: boolean; headers: Record<string, string> }): KeyUsage {
  if (allowed) return { headers, refusal: undefined };
  return { headers, refusal: tooManyRequests({ allowed, headers }, KEY_REFUSED) };
}
