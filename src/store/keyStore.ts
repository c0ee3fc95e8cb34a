// The seam's part for accounts and their API keys, kept as digests only: the API finds an active key and
// notes its use; the operator creates accounts and keys, lists, revokes and rolls them.
import type { Awaitable } from '../awaitable.js';
import type { Principal, Scopes } from './vocabulary.js';

export type ActiveKey = Omit<Principal, 'keyDigest'> & { digest: Buffer };

export interface Account {
  id: number;
  name: string;
  createdAt: string;
}

export interface KeyListing {
  id: number;
  account: string;
  displayPrefix: string;
  /** ALL_SCOPES (`*`): every scope there is and will be. */
  scopes: Scopes;
  createdAt: string;
  /** From then on the key is refused as a revoked one is. */
  expiresAt?: string;
  revokedAt?: string;
  /** Coarse: a server writes it at most once per key per KEY_USE_INTERVAL_MS (http/keyUses.ts). */
  lastUsedAt?: string;
}

/** A key to store: only its digest and display prefix, never the key. */
export interface NewKey {
  accountId: number;
  digest: Buffer;
  displayPrefix: string;
  scopes: Scopes;
  expiresAt?: string | undefined;
}

/** What a roll's new key takes of its own: the rest is the old key's. */
export type ReplacingKey = Pick<NewKey, 'digest' | 'displayPrefix'>;

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'missing';

/**
 * A key replaced by a new one of the same account, scopes and expiry (`keys roll`): `rolled` with both, the
 * old one now ending as OldKeyEnd said; `inactive` if it was revoked or expired already.
 */
export type RollOutcome = { outcome: 'rolled'; key: KeyListing; old: KeyListing } | { outcome: 'inactive' } | { outcome: 'missing' };

/** The old key of a roll: how long it still works. `now` revokes it. */
export type OldKeyEnd = { expiresAt: string } | 'now';

/** Accounts and their API keys, kept as digests only. */
export interface KeyStore {
  /**
   * The active key whose digest is `digest`: neither revoked nor expired. A key that is not active is never
   * found again.
   */
  findActiveKey(digest: Buffer): Awaitable<ActiveKey | undefined>;
  /** Notes that the keys `keyIds` were used at `at` (coarsely: http/keyUses.ts). */
  recordKeyUses(keyIds: readonly number[], at: string): Promise<void>;
}

export interface KeyAdmin {
  createAccount(name: string): Promise<Account>;
  findAccount(name: string): Promise<Account | undefined>;
  createKey(key: NewKey): Promise<KeyListing>;
  listKeys(): Promise<KeyListing[]>;
  revokeKeyById(keyId: number): Promise<RevokeOutcome>;
  revokeKeyByDigest(digest: Buffer): Promise<RevokeOutcome>;
  /** `newKey` (digest and display prefix) replaces the key `keyId` (or `digest`), which ends at `oldEnds`. */
  rollKeyById(keyId: number, newKey: ReplacingKey, oldEnds: OldKeyEnd): Promise<RollOutcome>;
  rollKeyByDigest(digest: Buffer, newKey: ReplacingKey, oldEnds: OldKeyEnd): Promise<RollOutcome>;
}
