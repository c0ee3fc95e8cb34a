// Accounts and their API keys. A key is stored only as its digest and a short display prefix.
import type { KeyRepository } from '../backend.js';
import { ACCOUNT_COLUMNS, KEY_LISTING, type KeyRow, scopesColumn, scopesOf, toKeyListing } from '../rows.js';
import type { Account, ActiveKey, KeyListing, NewKey, OldKeyEnd, ReplacingKey, RevokeOutcome, RollOutcome } from '../store.js';
import type { Connection } from './connection.js';

interface ActiveKeyRow {
  id: number;
  account_id: number;
  account_name: string;
  digest: Buffer;
  scopes: string | null;
  expires_at: string | null;
}

/** A key found by its digest and not revoked, with when it expires (undefined: never). */
interface UnrevokedKey {
  key: ActiveKey;
  expiresAt: string | undefined;
}

/** Bounds the memory unknown digests can take; the cache starts over when it is full. */
const MAX_CACHED_KEYS = 10_000;

export class Accounts implements KeyRepository {
  readonly #connection: Connection;
  readonly #statements;
  /** Digests already looked up, found or not; never the keys themselves. */
  #activeKeys: { stamp: string; byDigest: Map<string, UnrevokedKey | undefined> } = {
    stamp: '',
    byDigest: new Map(),
  };

  constructor(connection: Connection) {
    const { db } = connection;
    this.#connection = connection;
    this.#statements = {
      insertAccount: db.prepare<[string, string]>(`INSERT INTO accounts (name, created_at) VALUES (?, ?)`),
      accountByName: db.prepare<[string], Account>(
        `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ?`,
      ),
      unrevokedKey: db.prepare<[Buffer], ActiveKeyRow>(
        `SELECT k.id, k.account_id, a.name AS account_name, k.digest, k.scopes, k.expires_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.digest = ? AND k.revoked_at IS NULL`,
      ),
      insertKey: db.prepare<[number, Buffer, string, string | null, string | null, string]>(
        `INSERT INTO api_keys (account_id, digest, display_prefix, scopes, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      keyToRoll: db.prepare<[number], { account_id: number; scopes: string | null; expires_at: string | null; revoked_at: string | null }>(
        `SELECT account_id, scopes, expires_at, revoked_at FROM api_keys WHERE id = ?`,
      ),
      expireKey: db.prepare<[string, string, number]>(
        `UPDATE api_keys SET expires_at = min(coalesce(expires_at, ?), ?) WHERE id = ?`,
      ),
      recordUse: db.prepare<[string, number]>(`UPDATE api_keys SET last_used_at = ? WHERE id = ?`),
      listKeys: db.prepare<[], KeyRow>(`${KEY_LISTING} ORDER BY k.id`),
      keyById: db.prepare<[number | bigint], KeyRow>(`${KEY_LISTING} WHERE k.id = ?`),
      keyIdByDigest: db.prepare<[Buffer], { id: number }>(`SELECT id FROM api_keys WHERE digest = ?`),
      revokeKey: db.prepare<[string, number]>(
        `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
      ),
    };
  }

  createAccount(name: string): Account {
    const createdAt = this.#connection.now();
    const { lastInsertRowid } = this.#connection.immediate(() =>
      this.#statements.insertAccount.run(name, createdAt),
    );
    return { id: Number(lastInsertRowid), name, createdAt };
  }

  findAccount(name: string): Account | undefined {
    return this.#statements.accountByName.get(name);
  }

  createKey({ accountId, digest, displayPrefix, scopes, expiresAt }: NewKey): KeyListing {
    return this.#connection.immediate(() => this.#insertKey(accountId, digest, displayPrefix, scopesColumn(scopes), expiresAt ?? null));
  }

  #insertKey(accountId: number, digest: Buffer, prefix: string, scopes: string | null, expiresAt: string | null): KeyListing {
    const { lastInsertRowid } = this.#statements.insertKey.run(accountId, digest, prefix, scopes, expiresAt, this.#connection.now());
    return toKeyListing(this.#statements.keyById.get(lastInsertRowid) as KeyRow);
  }

  roll(keyId: number, { digest, displayPrefix }: ReplacingKey, oldEnds: OldKeyEnd): RollOutcome {
    return this.#connection.immediate(() => {
      const old = this.#statements.keyToRoll.get(keyId);
      if (!old) return { outcome: 'missing' };
      const now = this.#connection.now();
      if (old.revoked_at !== null || this.#expired(old.expires_at ?? undefined)) return { outcome: 'inactive' };
      const key = this.#insertKey(old.account_id, digest, displayPrefix, old.scopes, old.expires_at);
      if (oldEnds === 'now') this.#statements.revokeKey.run(now, keyId);
      else this.#statements.expireKey.run(oldEnds.expiresAt, oldEnds.expiresAt, keyId);
      return { outcome: 'rolled', key, old: toKeyListing(this.#statements.keyById.get(keyId) as KeyRow) };
    });
  }

  recordUses(keyIds: readonly number[], at: string): void {
    this.#connection.immediate(() => {
      for (const keyId of keyIds) this.#statements.recordUse.run(at, keyId);
    });
  }

  listKeys(): KeyListing[] {
    return this.#statements.listKeys.all().map(toKeyListing);
  }

  /**
   * Answers from memory until any connection changes the database, so a revocation counts at once; an
   * expiry is a time, compared with the clock at every call.
   */
  findActiveKey(digest: Buffer): ActiveKey | undefined {
    const found = this.#findUnrevokedKey(digest);
    return found && !this.#expired(found.expiresAt) ? found.key : undefined;
  }

  /** Whether a key that expires at `expiresAt` (never: undefined) has, by the clock. */
  #expired(expiresAt: string | undefined): boolean {
    return expiresAt !== undefined && expiresAt <= this.#connection.now();
  }

  #findUnrevokedKey(digest: Buffer): UnrevokedKey | undefined {
    const stamp = this.#connection.changeStamp();
    if (this.#activeKeys.stamp !== stamp || this.#activeKeys.byDigest.size >= MAX_CACHED_KEYS) {
      this.#activeKeys = { stamp, byDigest: new Map() };
    }
    // One character per byte: the cheapest text of a digest, for a key of the map only.
    const text = digest.toString('latin1');
    const { byDigest } = this.#activeKeys;
    if (byDigest.has(text)) return byDigest.get(text);
    const row = this.#statements.unrevokedKey.get(digest);
    const found = row && {
      key: {
        keyId: row.id,
        accountId: row.account_id,
        accountName: row.account_name,
        digest: row.digest,
        scopes: scopesOf(row.scopes),
      },
      expiresAt: row.expires_at ?? undefined,
    };
    byDigest.set(text, found);
    return found;
  }

  findKeyId(digest: Buffer): number | undefined {
    return this.#statements.keyIdByDigest.get(digest)?.id;
  }

  revoke(keyId: number): RevokeOutcome {
    return this.#connection.immediate(() => {
      if (this.#statements.revokeKey.run(this.#connection.now(), keyId).changes === 1) return 'revoked';
      return this.#statements.keyById.get(keyId) ? 'already_revoked' : 'missing';
    });
  }
}
