// The request quotas' shared count (store/quotas.ts): a lease is one statement, lease_quota() (migration 7).
import type { Pool } from 'pg';
import type { QuotaRepository } from '../backend.js';
import type { QuotaLease, QuotaLeaseRequest } from '../quotas.js';

export class Quotas implements QuotaRepository {
  readonly #pool: Pool;
  readonly #writeBudgetMs: number | null;

  /** `writeBudgetMs`: how long a lease may take in PostgreSQL before it gives up, writing nothing. */
  constructor(pool: Pool, writeBudgetMs: number | null) {
    this.#pool = pool;
    this.#writeBudgetMs = writeBudgetMs;
  }

  async lease(request: QuotaLeaseRequest): Promise<QuotaLease> {
    const { quota, subject, windowStart, windowSeconds, want, spent, limit, processId } = request;
    const { rows } = await this.#pool.query<QuotaLease>(
      `SELECT granted, used, processes FROM lease_quota($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [quota, subject, windowStart, windowSeconds * 1000, want, spent, limit, processId, this.#writeBudgetMs],
    );
    return rows[0] as QuotaLease;
  }

  async forget(before: number): Promise<void> {
    await this.#pool.query(`DELETE FROM quota_windows WHERE window_start < $1`, [before]);
    await this.#pool.query(`DELETE FROM quota_processes WHERE seen_at < $1`, [before]);
  }
}
