// Who still calls the deprecated operations: counts per operation and account, written in batches.
import type Database from 'better-sqlite3';
import type { DeprecatedCallRepository } from '../backend.js';
import type { DeprecatedCallListing, DeprecatedCalls } from '../store.js';

export class DeprecatedCallLog implements DeprecatedCallRepository {
  readonly #statements;
  readonly #record: Database.Transaction<(calls: readonly DeprecatedCalls[]) => void>;

  constructor(db: Database.Database) {
    this.#statements = {
      add: db.prepare<[string, number, string, string, number]>(
        `INSERT INTO deprecated_calls (operation_id, account_id, first_call_at, last_call_at, call_count)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (operation_id, account_id) DO UPDATE SET
           first_call_at = min(first_call_at, excluded.first_call_at),
           last_call_at = max(last_call_at, excluded.last_call_at),
           call_count = call_count + excluded.call_count`,
      ),
      // Named as DeprecatedCallListing names them, in the same order.
      list: db.prepare<[], DeprecatedCallListing>(
        `SELECT d.operation_id AS operationId, a.name AS account, d.first_call_at AS firstCallAt,
           d.last_call_at AS lastCallAt, d.call_count AS count
         FROM deprecated_calls d JOIN accounts a ON a.id = d.account_id
         ORDER BY d.operation_id, d.last_call_at DESC, a.name`,
      ),
    };
    this.#record = db.transaction((calls: readonly DeprecatedCalls[]) => {
      for (const { operationId, accountId, firstCallAt, lastCallAt, count } of calls) {
        this.#statements.add.run(operationId, accountId, firstCallAt, lastCallAt, count);
      }
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
