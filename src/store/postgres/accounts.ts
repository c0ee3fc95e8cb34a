// Accounts and their API keys. A key is stored only as its digest and a short display prefix.
import type { Pool } from 'pg';
import type { Account, ActiveKey, KeyListing, RevokeOutcome } from '../store.js';
import { withoutNulls } from './orders.js';

const KEY_LISTING = `SELECT k.id, a.name AS account, k.display_prefix AS "displayPrefix",
    k.created_at AS "createdAt", k.revoked_at AS "revokedAt"
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

export class Accounts {
  readonly #pool: Pool;
  readonly #now: () => string;

  constructor(pool: Pool, now: () => string) {
    this.#pool = pool;
    this.#now = now;
  }

  async create(name: string): Promise<Account> {
    const { rows } = await this.#pool.query<Account>(
      `INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING id, name, created_at AS "createdAt"`,
      [name, this.#now()],
    );
    return rows[0] as Account;
  }

  async find(name: string): Promise<Account | undefined> {
    const { rows } = await this.#pool.query<Account>(
      `SELECT id, name, created_at AS "createdAt" FROM accounts WHERE name = $1`,
      [name],
    );
    return rows[0];
  }

  async createKey(accountId: number, digest: Buffer, displayPrefix: string): Promise<KeyListing> {
    const { rows } = await this.#pool.query<KeyListing>(
      `WITH added AS (
         INSERT INTO api_keys (account_id, digest, display_prefix, created_at) VALUES ($1, $2, $3, $4)
         RETURNING id, account_id, display_prefix, created_at, revoked_at)
       SELECT k.id, a.name AS account, k.display_prefix AS "displayPrefix", k.created_at AS "createdAt",
         k.revoked_at AS "revokedAt"
       FROM added k JOIN accounts a ON a.id = k.account_id`,
      [accountId, digest, displayPrefix, this.#now()],
    );
    return withoutNulls(rows[0] as KeyListing);
  }

  async listKeys(): Promise<KeyListing[]> {
    const { rows } = await this.#pool.query<KeyListing>(`${KEY_LISTING} ORDER BY k.id`);
    return rows.map(withoutNulls<KeyListing>);
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

  async revokeKeyById(keyId: number): Promise<RevokeOutcome> {
    if (!Number.isSafeInteger(keyId)) return 'missing';
    const { rows } = await this.#pool.query<{ revoked: boolean }>(
      `WITH revoked AS (
         UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id)
       SELECT EXISTS (SELECT 1 FROM revoked) AS revoked FROM api_keys WHERE id = $1`,
      [keyId, this.#now()],
    );
    if (rows.length === 0) return 'missing';
    return rows[0]?.revoked ? 'revoked' : 'already_revoked';
  }

  async revokeKeyByDigest(digest: Buffer): Promise<RevokeOutcome> {
    const { rows } = await this.#pool.query<{ id: number }>(`SELECT id FROM api_keys WHERE digest = $1`, [digest]);
    return rows[0] ? this.revokeKeyById(rows[0].id) : 'missing';
  }
}
