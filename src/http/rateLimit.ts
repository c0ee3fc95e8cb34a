// The RateLimit / RateLimit-Policy fields of draft-ietf-httpapi-ratelimit-headers-10, and the 429 that
// carries them. The counting is sharedQuota.ts's.
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';

export interface QuotaState {
  allowed: boolean;
  headers: Record<string, string>;
}

/** The fields of a window in which `remaining` requests are left; a refusal adds Retry-After. */
export function windowFields(
  policy: string,
  policyField: string,
  remaining: number,
  allowed: boolean,
  windowSeconds: number,
  nowMs: number,
): QuotaState {
  const windowMs = windowSeconds * 1000;
  const resetSeconds = Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / 1000));
  const headers: Record<string, string> = {
    'ratelimit-policy': policyField,
    ratelimit: `"${policy}";r=${remaining};t=${resetSeconds}`,
  };
  if (allowed) return { allowed: true, headers };
  return { allowed: false, headers: { ...headers, 'retry-after': String(resetSeconds) } };
}

export function tooManyRequests(state: QuotaState, message: string): ErrorAnswer<429> {
  return apiError('too_many_requests', message, state.headers);
}
