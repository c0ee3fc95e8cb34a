// The calls to deprecated operations, per operation and account, added to in one statement per flush.
import type { Pool } from 'pg';
import type { DeprecatedCallRepository } from '../backend.js';
import { DEPRECATED_CALL_COLUMNS, DEPRECATED_CALL_LISTING, deprecatedCallRow } from '../rows.js';
import type { DeprecatedCallListing, DeprecatedCalls } from '../store.js';

/** The rows as json_populate_recordset reads them: typed by the table itself. */
const ADD_CALLS = `INSERT INTO deprecated_calls (${DEPRECATED_CALL_COLUMNS.join(', ')})
  SELECT ${DEPRECATED_CALL_COLUMNS.join(', ')} FROM json_populate_recordset(NULL::deprecated_calls, $1::json)
  ON CONFLICT (operation_id, account_id) DO UPDATE SET
    first_call_at = least(deprecated_calls.first_call_at, excluded.first_call_at),
    last_call_at = greatest(deprecated_calls.last_call_at, excluded.last_call_at),
    call_count = deprecated_calls.call_count + excluded.call_count`;

export class DeprecatedCallLog implements DeprecatedCallRepository {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Times are ISO 8601 in UTC, so least and greatest compare them as text. */
  async record(calls: readonly DeprecatedCalls[]): Promise<void> {
    if (calls.length === 0) return;
    await this.#pool.query(ADD_CALLS, [JSON.stringify(calls.map(deprecatedCallRow))]);
  }

  async list(): Promise<DeprecatedCallListing[]> {
    const { rows } = await this.#pool.query<DeprecatedCallListing>(DEPRECATED_CALL_LISTING);
    return rows;
  }
}
