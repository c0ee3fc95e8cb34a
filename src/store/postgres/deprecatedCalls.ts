// The calls to deprecated operations, per operation and account, added to in one statement per flush.
import type { Pool } from 'pg';
import type { DeprecatedCallRepository } from '../backend.js';
import type { DeprecatedCallListing, DeprecatedCalls } from '../store.js';

export class DeprecatedCallLog implements DeprecatedCallRepository {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Times are ISO 8601 in UTC, so least and greatest compare them as text. */
  async record(calls: readonly DeprecatedCalls[]): Promise<void> {
    if (calls.length === 0) return;
    await this.#pool.query(
      `INSERT INTO deprecated_calls (operation_id, account_id, first_call_at, last_call_at, call_count)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])
       ON CONFLICT (operation_id, account_id) DO UPDATE SET
         first_call_at = least(deprecated_calls.first_call_at, excluded.first_call_at),
         last_call_at = greatest(deprecated_calls.last_call_at, excluded.last_call_at),
         call_count = deprecated_calls.call_count + excluded.call_count`,
      [
        calls.map((call) => call.operationId),
        calls.map((call) => call.accountId),
        calls.map((call) => call.firstCallAt),
        calls.map((call) => call.lastCallAt),
        calls.map((call) => call.count),
      ],
    );
  }

  async list(): Promise<DeprecatedCallListing[]> {
    const { rows } = await this.#pool.query<DeprecatedCallListing>(
      `SELECT d.operation_id AS "operationId", a.name AS account, d.first_call_at AS "firstCallAt",
         d.last_call_at AS "lastCallAt", d.call_count AS count
       FROM deprecated_calls d JOIN accounts a ON a.id = d.account_id
       ORDER BY d.operation_id, d.last_call_at DESC, a.name`,
    );
    return rows;
  }
}
