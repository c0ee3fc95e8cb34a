// The two request quotas around authentication: failed attempts per client address (against key guessing),
// then requests per key. Both are keyed by what the server resolved, the address or the key's id, never by
// the Authorization text, so no spelling of the header gets a fresh quota.
import type { FastifyReply } from 'fastify';
import type { RateLimits } from '../config.js';
import type { ErrorResult } from '../contract/errorBody.js';
import { FixedWindowQuota, tooManyRequests } from './rateLimit.js';

export class RequestQuotas {
  readonly #authFailures: FixedWindowQuota;
  readonly #perKey: FixedWindowQuota;

  constructor(limits: RateLimits, nowMs: () => number = Date.now) {
    this.#authFailures = new FixedWindowQuota(
      'auth-failures',
      limits.authFailuresPerAddress,
      limits.windowSeconds,
      nowMs,
    );
    this.#perKey = new FixedWindowQuota('per-key', limits.requestsPerKey, limits.windowSeconds, nowMs);
  }

  /** An address that failed authentication too often is refused before its key is even looked at. */
  beforeAuthentication(address: string): ErrorResult<429> | undefined {
    if (!this.#authFailures.enabled) return undefined;
    const state = this.#authFailures.peek(address);
    if (state.allowed) return undefined;
    return tooManyRequests(state, 'Too many failed authentications from this address; retry later');
  }

  authenticationFailed(address: string): void {
    if (this.#authFailures.enabled) this.#authFailures.hit(address);
  }

  /** Counts the request against its key; every answer to a known key tells where its quota stands. */
  afterAuthentication(keyId: number, reply: FastifyReply): ErrorResult<429> | undefined {
    if (!this.#perKey.enabled) return undefined;
    const state = this.#perKey.hit(keyId);
    reply.headers(state.headers);
    if (state.allowed) return undefined;
    return tooManyRequests(state, 'Too many requests for this API key; retry later');
  }
}
