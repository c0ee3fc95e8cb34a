// The store's words that every aggregate's interface, and every caller of the store, shares: who calls
// (Principal) and what its key may do (its scopes), the answer of a call made for a caller whose key is not
// active (UNAUTHORIZED), an order's statuses, and what an id is. It imports nothing: everything of the store
// is built on it.
export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Ids are issued from 1 up, held as numbers, exact only up to 2^53 - 1. Given a larger one, every call finds
 * nothing and every move or revocation answers `missing`, whatever the backend; a filter's `petId` and a
 * page's `afterId` must be ids (the caller checks).
 */
export const isStoreId = (id: number): boolean => Number.isSafeInteger(id);

/**
 * A call made for an API caller answers this, having written and read nothing, when the caller's key is not
 * active as the call runs: the key is checked by the call's own statement or transaction (where a backend
 * can: otherwise just before it), so no write slips in after a revocation has committed.
 */
export const UNAUTHORIZED = 'unauthorized';
export type Unauthorized = typeof UNAUTHORIZED;

/**
 * What a key may do: each operation of the API needs one of these (its contract's `x-required-scope`), but
 * the deprecated getPetById, which needs a valid key only. A key has a set of them, or every scope there is
 * and will be (ALL_SCOPES), as every key made without `--scopes` has. A key's scopes never change: other
 * scopes are another key (`store-orders keys roll`), so what a server learned of a key stays true.
 */
export const SCOPES = ['orders:read', 'orders:write', 'messages:read', 'messages:write', 'webhooks:manage'] as const;
export type Scope = (typeof SCOPES)[number];
export const ALL_SCOPES = '*';
export type Scopes = readonly Scope[] | typeof ALL_SCOPES;

export const isScope = (name: string): name is Scope => (SCOPES as readonly string[]).includes(name);

/** Whether a key with `scopes` may do what `scope` allows. */
export const allows = (scopes: Scopes, scope: Scope): boolean => scopes === ALL_SCOPES || scopes.includes(scope);

/** Who calls the API: the key's account and id, as an earlier lookup of the key found them. */
export interface Principal {
  accountId: number;
  /** The account's name, found by the key's own lookup: the request log names the account with it. */
  accountName: string;
  keyId: number;
  /** The key's digest, which every call made for the caller checks again (UNAUTHORIZED). */
  keyDigest: Buffer;
  scopes: Scopes;
}
