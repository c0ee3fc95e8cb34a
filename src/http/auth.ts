// Bearer authentication: parse the header, refuse malformed keys before any lookup, and compare digests
// in constant time. The key itself is never kept, logged or compared as text.
import { timingSafeEqual } from 'node:crypto';
import { isWellFormedKey, keyDigest } from '../keys.js';
import type { Principal, Store } from '../store/store.js';

export const WWW_AUTHENTICATE = 'Bearer realm="store-orders"';

/** The token of an `Authorization: Bearer <token>` header; the scheme name is case-insensitive (RFC 9110). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^bearer +([^ ]+) *$/i.exec(header);
  return match?.[1];
}

export function authenticate(header: string | undefined, store: Store): Principal | undefined {
  const token = bearerToken(header);
  if (token === undefined || !isWellFormedKey(token)) return undefined;
  const digest = keyDigest(token);
  const key = store.findActiveKey(digest);
  // The lookup is by digest, so a timing difference there says nothing about the key; the final
  // comparison is still constant-time so no code path compares secrets byte by byte.
  if (!key || key.digest.length !== digest.length || !timingSafeEqual(key.digest, digest)) return undefined;
  return { accountId: key.accountId, keyId: key.keyId };
}
