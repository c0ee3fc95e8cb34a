// Who still calls the deprecated operations: counts per operation and account, written in batches.
import type Database from 'better-sqlite3';
import type { DeprecatedCallRepository } from '../backend.js';
import { DEPRECATED_CALL_COLUMNS, DEPRECATED_CALL_LISTING, deprecatedCallRow } from '../rows.js';
import type { DeprecatedCallListing, DeprecatedCalls } from '../store.js';

export class DeprecatedCallLog implements DeprecatedCallRepository {
  readonly #statements;
  readonly #record: Database.Transaction<(calls: readonly DeprecatedCalls[]) => void>;

  constructor(db: Database.Database) {
    const columns = DEPRECATED_CALL_COLUMNS;
    this.#statements = {
      add: db.prepare(
        `INSERT INTO deprecated_calls (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})
         ON CONFLICT (operation_id, account_id) DO UPDATE SET
           first_call_at = min(first_call_at, excluded.first_call_at),
           last_call_at = max(last_call_at, excluded.last_call_at),
           call_count = call_count + excluded.call_count`,
      ),
      list: db.prepare<[], DeprecatedCallListing>(DEPRECATED_CALL_LISTING),
    };
    this.#record = db.transaction((calls: readonly DeprecatedCalls[]) => {
      for (const call of calls) this.#statements.add.run(deprecatedCallRow(call));
    });
  }

  /**
   * Times are ISO 8601 in UTC, so min and max compare them as text. Not counted as a change of the data
   * the caches hold: no order, key or message moves.
   */
  record(calls: readonly DeprecatedCalls[]): void {
    if (calls.length > 0) this.#record.immediate(calls);
  }

  list(): DeprecatedCallListing[] {
    return this.#statements.list.all();
  }
}
