// Accounts and their API keys. A key is stored only as its digest and a short display prefix.
import type { Pool } from 'pg';
import type { KeyRepository } from '../backend.js';
import { ACCOUNT_COLUMNS, KEY_LISTING, keyListingOf, type KeyRow, toKeyListing } from '../rows.js';
import type { Account, ActiveKey, KeyListing, RevokeOutcome } from '../store.js';

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

  async createKey(accountId: number, digest: Buffer, displayPrefix: string): Promise<KeyListing> {
    const { rows } = await this.#pool.query<KeyRow>(
      `WITH added AS (
         INSERT INTO api_keys (account_id, digest, display_prefix, created_at) VALUES ($1, $2, $3, $4) RETURNING *)
       ${keyListingOf('added')}`,
      [accountId, digest, displayPrefix, this.#now()],
    );
    return toKeyListing(rows[0] as KeyRow);
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
    const { rows } = await this.#pool.query<ActiveKey>(
      `SELECT k.id AS "keyId", k.account_id AS "accountId", a.name AS "accountName", k.digest
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.digest = $1 AND k.revoked_at IS NULL`,
      [digest],
    );
    return rows[0];
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
