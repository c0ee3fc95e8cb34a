// Bearer authentication: parse the header, refuse malformed keys before any lookup, and compare digests
// in constant time. The key itself is never kept, logged or compared as text.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { apiError, type ErrorAnswer } from '../contract/errorBody.js';
import { hasKeyShape, hasValidChecksum, keyDigest } from '../keys.js';
import { bearerToken } from '../serving/bearerToken.js';
import { singleHeader } from '../serving/rawHeaders.js';
import type { KeyStore, Principal } from '../store/store.js';
import type { RequestQuotas } from './quotas.js';

export const WWW_AUTHENTICATE = 'Bearer realm="store-orders"';

/**
 * Digests of keys that have authenticated before. Their checksum is not checked again: it is a second
 * SHA-256 on every request, and the same key cannot have lost it. Whether the key is still active is the
 * store's answer each time. Bounded like the store's own cache; it starts over when full.
 */
const checkedDigests = new Set<string>();
const MAX_CHECKED_DIGESTS = 10_000;

export async function authenticate(header: string | undefined, keys: KeyStore): Promise<Principal | undefined> {
  const token = bearerToken(header);
  if (token === undefined || !hasKeyShape(token)) return undefined;
  const digest = keyDigest(token);
  const digestText = digest.toString('base64');
  // A malformed key is refused before any lookup.
  if (!checkedDigests.has(digestText) && !hasValidChecksum(token)) return undefined;
  const key = await keys.findActiveKey(digest);
  // The lookup is by digest, so a timing difference there says nothing about the key; the final
  // comparison is still constant-time so no code path compares secrets byte by byte.
  if (!key || key.digest.length !== digest.length || !timingSafeEqual(key.digest, digest)) return undefined;
  if (checkedDigests.size >= MAX_CHECKED_DIGESTS) checkedDigests.clear();
  checkedDigests.add(digestText);
  return { accountId: key.accountId, accountName: key.accountName, keyId: key.keyId };
}

/**
 * The authentication stage: the caller of a request, or its 401. A failed guess counts against the
 * address before it is answered (a 429 once the address is past its quota); a key in the URL is in logs
 * and histories already, so it is neither looked up (the answer tells nothing about it) nor counted.
 */
export async function authenticateRequest(
  request: FastifyRequest,
  keys: KeyStore,
  quotas: RequestQuotas,
): Promise<{ principal: Principal } | { refusal: ErrorAnswer<401> | ErrorAnswer<429> }> {
  if (sendsKeyInUrl(request.query)) return { refusal: KEY_IN_URL };
  const principal = await authenticate(singleHeader(request.raw.rawHeaders, 'authorization'), keys);
  if (principal) return { principal };
  // A failure past the address's quota is answered as the address's next request would be.
  const overQuota = await quotas.authenticationFailed(request.ip);
  return { refusal: overQuota ?? MISSING_KEY };
}

/** RFC 6750 §2.3 lets a bearer token travel as `access_token` in the query; this API does not. */
function sendsKeyInUrl(query: unknown): boolean {
  return Object.hasOwn(query as object, 'access_token');
}

const MISSING_KEY = unauthorized('A valid API key is required');
const KEY_IN_URL = unauthorized('Send the API key in the Authorization header, not in the URL');

function unauthorized(message: string): ErrorAnswer<401> {
  return apiError('unauthorized', message, { 'WWW-Authenticate': WWW_AUTHENTICATE });
}
