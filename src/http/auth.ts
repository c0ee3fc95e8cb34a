// Bearer authentication: parse the header, refuse malformed keys before any lookup, and compare digests
// in constant time. The key itself is never kept, logged or compared as text.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { andThen, type Awaitable } from '../awaitable.js';
import type { ErrorAnswer } from '../contract/errorBody.js';
import { KEY_REQUIRED, unauthorized } from '../contract/unauthorized.js';
import { hasKeyShape, hasValidChecksum, keyDigest } from '../keys.js';
import { bearerToken } from '../serving/bearerToken.js';
import { sentFields } from '../serving/rawHeaders.js';
import type { KeyStore, Principal } from '../store/store.js';
import type { RequestQuotas } from './quotas.js';

/** Bounds the callers remembered; the memory starts over when full. */
const MAX_KNOWN_CALLERS = 10_000;

/** The caller of a request: `known` when learned from an earlier answer and not looked up for this one. */
export interface Caller {
  principal: Principal;
  known: boolean;
}

/**
 * The callers of keys that authenticated before, by digest: learned from earlier answers, they let a
 * request count against its key's quota before its operation runs, and an operation whose store call
 * checks the key itself run without a lookup first (one statement where there were two). They never
 * authorize anything: the key is checked again, by that store call or by a lookup before any other answer.
 * A key's account, id and scopes never change, so what is learned stays true for as long as the key exists.
 */
export class KnownCallers {
  readonly #byDigest = new Map<string, Principal>();

  constructor(readonly keys: KeyStore) {}

  /** The caller of `header`; a key never seen before is looked up, and a malformed one refused before. */
  identify(header: string | undefined, lookUp: boolean): Awaitable<Caller | undefined> {
    const token = bearerToken(header);
    if (token === undefined || !hasKeyShape(token)) return undefined;
    const digest = keyDigest(token);
    // One character per byte: the cheapest text of a digest, for a key of the map only.
    const digestText = digest.toString('latin1');
    const known = this.#byDigest.get(digestText);
    // Its checksum was checked when it was learned: the same key cannot have lost it.
    if (known && !lookUp && timingSafeEqual(known.keyDigest, digest)) return { principal: known, known: true };
    if (!known && !hasValidChecksum(token)) return undefined;
    return andThen(authenticate(digest, this.keys), (principal) => {
      if (!principal) {
        this.#byDigest.delete(digestText);
        return undefined;
      }
      if (this.#byDigest.size >= MAX_KNOWN_CALLERS) this.#byDigest.clear();
      this.#byDigest.set(digestText, principal);
      return { principal, known: false };
    });
  }

  /** Whether a known caller's key is still active, by a lookup; one that is not is forgotten. */
  confirm(principal: Principal): Awaitable<boolean> {
    return andThen(authenticate(principal.keyDigest, this.keys), (active) => {
      if (!active) this.forget(principal);
      return active !== undefined;
    });
  }

  forget(principal: Principal): void {
    this.#byDigest.delete(principal.keyDigest.toString('latin1'));
  }
}

/** The active key whose digest is `digest`, as the caller it names. */
export function authenticate(digest: Buffer, keys: KeyStore): Awaitable<Principal | undefined> {
  return andThen(keys.findActiveKey(digest), (key) => {
    // The lookup is by digest, so a timing difference there says nothing about the key; the final
    // comparison is still constant-time so no code path compares secrets byte by byte.
    if (!key || key.digest.length !== digest.length || !timingSafeEqual(key.digest, digest)) return undefined;
    const { accountId, accountName, keyId, scopes } = key;
    return { accountId, accountName, keyId, keyDigest: key.digest, scopes };
  });
}

/**
 * The authentication stage: the caller of a request, or its 401. `lookUp`: the key is looked up even when
 * known, for an operation whose store call does not check it. A failed guess counts against the address
 * (keyRefused); a key in the URL is in logs and histories already, so it is neither looked up (the answer
 * tells nothing about it) nor counted.
 */
export function authenticateRequest(
  request: FastifyRequest,
  callers: KnownCallers,
  quotas: RequestQuotas,
  lookUp: boolean,
): Awaitable<Caller | { refusal: ErrorAnswer<401> | ErrorAnswer<429> }> {
  if (sendsKeyInUrl(request.query)) return { refusal: KEY_IN_URL };
  const caller = callers.identify(sentFields(request.raw).authorization, lookUp);
  return andThen(caller, (identified) => identified ?? refusal(request, quotas));
}

function refusal(request: FastifyRequest, quotas: RequestQuotas) {
  return andThen(keyRefused(request, quotas), (refused) => ({ refusal: refused }));
}

/**
 * The answer to a key that is not active, found so before the operation or by it: the failure counts
 * against the address before it is answered, and past the address's quota it is a 429, as the address's
 * next request would be.
 */
export function keyRefused(request: FastifyRequest, quotas: RequestQuotas): Awaitable<ErrorAnswer<401> | ErrorAnswer<429>> {
  return andThen(quotas.authenticationFailed(request.ip), (tooMany) => tooMany ?? KEY_REQUIRED);
}

/** RFC 6750 §2.3 lets a bearer token travel as `access_token` in the query; this API does not. */
function sendsKeyInUrl(query: unknown): boolean {
  return Object.hasOwn(query as object, 'access_token');
}

const KEY_IN_URL = unauthorized('Send the API key in the Authorization header, not in the URL');
