// Accounts and their API keys. A key is stored only as its digest and a short display prefix.
import type { KeyRepository } from '../backend.js';
import { ACCOUNT_COLUMNS, KEY_LISTING, type KeyRow, toKeyListing } from '../rows.js';
import type { Account, ActiveKey, KeyListing, RevokeOutcome } from '../store.js';
import type { Connection } from './connection.js';

interface ActiveKeyRow {
  id: number;
  account_id: number;
  account_name: string;
  digest: Buffer;
}

/** Bounds the memory unknown digests can take; the cache starts over when it is full. */
const MAX_CACHED_KEYS = 10_000;

export class Accounts implements KeyRepository {
  readonly #connection: Connection;
  readonly #statements;
  /** Digests already looked up, found or not; never the keys themselves. */
  #activeKeys: { stamp: string; byDigest: Map<string, ActiveKey | undefined> } = {
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
      activeKey: db.prepare<[Buffer], ActiveKeyRow>(
        `SELECT k.id, k.account_id, a.name AS account_name, k.digest
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.digest = ? AND k.revoked_at IS NULL`,
      ),
      insertKey: db.prepare<[number, Buffer, string, string]>(
        `INSERT INTO api_keys (account_id, digest, display_prefix, created_at) VALUES (?, ?, ?, ?)`,
      ),
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

  createKey(accountId: number, digest: Buffer, displayPrefix: string): KeyListing {
    const { lastInsertRowid } = this.#connection.immediate(() =>
      this.#statements.insertKey.run(accountId, digest, displayPrefix, this.#connection.now()),
    );
    return toKeyListing(this.#statements.keyById.get(lastInsertRowid) as KeyRow);
  }

  listKeys(): KeyListing[] {
    return this.#statements.listKeys.all().map(toKeyListing);
  }

  /** Answers from memory until any connection changes the database, so a revocation counts at once. */
  findActiveKey(digest: Buffer): ActiveKey | undefined {
    const stamp = this.#connection.changeStamp();
    if (this.#activeKeys.stamp !== stamp || this.#activeKeys.byDigest.size >= MAX_CACHED_KEYS) {
      this.#activeKeys = { stamp, byDigest: new Map() };
    }
    // One character per byte: the cheapest text of a digest, for a key of the map only.
    const text = digest.toString('latin1');
    const { byDigest } = this.#activeKeys;
    if (byDigest.has(text)) return byDigest.get(text);
    const row = this.#statements.activeKey.get(digest);
    const key = row && {
      keyId: row.id,
      accountId: row.account_id,
      accountName: row.account_name,
      digest: row.digest,
    };
    byDigest.set(text, key);
    return key;
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
