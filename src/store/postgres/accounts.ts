// Accounts and their API keys. A key is stored only as its digest and a short display prefix.
import type { Pool } from 'pg';
import type { KeyRepository } from '../backend.js';
import { ACCOUNT_COLUMNS, KEY_LISTING, keyListingOf, type KeyRow, scopesColumn, scopesOf, toKeyListing } from '../rows.js';
import type { Account, ActiveKey, KeyListing, NewKey, OldKeyEnd, ReplacingKey, RevokeOutcome, RollOutcome } from '../store.js';
import { inTransaction } from './transaction.js';

export class Accounts implements KeyRepository {
  readonly #pool: Pool;
  readonly #now: () => string;

  constructor(pool: Pool, now: () => string) {
    this.#pool = pool;
    this.#now = now;
  }

  async createAccount(name: string): Promise<Account> {
    const { rows } = await this.#pool.query<Account>(
      `INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING ${ACCOUNT_COLUMNS}`,
      [name, this.#now()],
    );
    return rows[0] as Account;
  }

  async findAccount(name: string): Promise<Account | undefined> {
    const { rows } = await this.#pool.query<Account>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = $1`,
      [name],
    );
    return rows[0];
  }

  async createKey({ accountId, digest, displayPrefix, scopes, expiresAt }: NewKey): Promise<KeyListing> {
    const { rows } = await this.#pool.query<KeyRow>(
      `WITH added AS (
         INSERT INTO api_keys (account_id, digest, display_prefix, scopes, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING *)
       ${keyListingOf('added')}`,
      [accountId, digest, displayPrefix, scopesColumn(scopes), expiresAt ?? null, this.#now()],
    );
    return toKeyListing(rows[0] as KeyRow);
  }

  /** The old key is locked, and only if it is active (key_row_is_active, migration 14) is the new one made. */
  roll(keyId: number, { digest, displayPrefix }: ReplacingKey, oldEnds: OldKeyEnd): Promise<RollOutcome> {
    return inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ active: boolean }>(
        `SELECT key_row_is_active(k) AS active FROM api_keys k WHERE k.id = $1 FOR UPDATE`,
        [keyId],
      );
      if (rows.length === 0) return { outcome: 'missing' };
      if (!rows[0]?.active) return { outcome: 'inactive' };
      const now = this.#now();
      const added = await client.query<KeyRow>(
        `WITH added AS (
           INSERT INTO api_keys (account_id, digest, display_prefix, scopes, expires_at, created_at)
           SELECT account_id, $2, $3, scopes, expires_at, $4 FROM api_keys WHERE id = $1
           RETURNING *)
         ${keyListingOf('added')}`,
        [keyId, digest, displayPrefix, now],
      );
      const ended = await client.query<KeyRow>(
        oldEnds === 'now'
          ? `WITH ended AS (UPDATE api_keys SET revoked_at = $2 WHERE id = $1 RETURNING *) ${keyListingOf('ended')}`
          : `WITH ended AS (
               UPDATE api_keys SET expires_at = least(coalesce(expires_at, $2), $2) WHERE id = $1 RETURNING *)
             ${keyListingOf('ended')}`,
        [keyId, oldEnds === 'now' ? now : oldEnds.expiresAt],
      );
      return { outcome: 'rolled', key: toKeyListing(added.rows[0] as KeyRow), old: toKeyListing(ended.rows[0] as KeyRow) };
    });
  }

  /** In the background of the requests (http/keyUses.ts): one statement for every key used lately. */
  async recordUses(keyIds: readonly number[], at: string): Promise<void> {
    await this.#pool.query(`UPDATE api_keys SET last_used_at = $2 WHERE id = ANY ($1)`, [keyIds, at]);
  }

  async listKeys(): Promise<KeyListing[]> {
    const { rows } = await this.#pool.query<KeyRow>(`${KEY_LISTING} ORDER BY k.id`);
    return rows.map(toKeyListing);
  }

  /**
   * Looked up on every request, never cached: a key revoked on any server, or through the CLI, is refused
   * by every server from its next request on.
   */
  async findActiveKey(digest: Buffer): Promise<ActiveKey | undefined> {
    const { rows } = await this.#pool.query<Omit<ActiveKey, 'scopes'> & { scopes: string | null }>(
      `SELECT k.id AS "keyId", k.account_id AS "accountId", a.name AS "accountName", k.digest, k.scopes
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.digest = $1 AND key_row_is_active(k)`,
      [digest],
    );
    const row = rows[0];
    return row && { ...row, scopes: scopesOf(row.scopes) };
  }

  async findKeyId(digest: Buffer): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ id: number }>(`SELECT id FROM api_keys WHERE digest = $1`, [digest]);
    return rows[0]?.id;
  }

  async revoke(keyId: number): Promise<RevokeOutcome> {
    const { rows } = await this.#pool.query<{ revoked: boolean }>(
      `WITH revoked AS (
         UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id)
       SELECT EXISTS (SELECT 1 FROM revoked) AS revoked FROM api_keys WHERE id = $1`,
      [keyId, this.#now()],
    );
    if (rows.length === 0) return 'missing';
    return rows[0]?.revoked ? 'revoked' : 'already_revoked';
  }
}
