// The store's words that every aggregate's interface, and every caller of the store, shares: who calls
// (Principal), the answer of a call made for a caller whose key is not active (UNAUTHORIZED), an order's
// statuses, and what an id is. It imports nothing: everything of the store is built on it.
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

/** Who calls the API: the key's account and id, as an earlier lookup of the key found them. */
export interface Principal {
  accountId: number;
  /** The account's name, found by the key's own lookup: the request log names the account with it. */
  accountName: string;
  keyId: number;
  /** The key's digest, which every call made for the caller checks again (UNAUTHORIZED). */
  keyDigest: Buffer;
}
