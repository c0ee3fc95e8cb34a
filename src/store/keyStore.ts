// The seam's part for accounts and their API keys, kept as digests only: the API finds an active key; the
// operator creates accounts and keys, lists and revokes them.
import type { Awaitable } from '../awaitable.js';
import type { Principal } from './vocabulary.js';

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
  createdAt: string;
  revokedAt?: string;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'missing';

/** Accounts and their API keys, kept as digests only. */
export interface KeyStore {
  /** The active (not revoked) key whose digest is `digest`; a revoked key is never found again. */
  findActiveKey(digest: Buffer): Awaitable<ActiveKey | undefined>;
}

export interface KeyAdmin {
  createAccount(name: string): Promise<Account>;
  findAccount(name: string): Promise<Account | undefined>;
  createKey(accountId: number, digest: Buffer, displayPrefix: string): Promise<KeyListing>;
  listKeys(): Promise<KeyListing[]>;
  revokeKeyById(keyId: number): Promise<RevokeOutcome>;
  revokeKeyByDigest(digest: Buffer): Promise<RevokeOutcome>;
}
