// Group commit: the writes that arrive in one turn of the event loop share one IMMEDIATE transaction, and
// so one fsync under synchronous=FULL. Each caller's promise settles only after that transaction has
// committed, so an answer is never sent for a write that is not on disk. Each write runs in a savepoint of
// its own: one that throws is rolled back alone, and the others still commit.
import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  readonly #afterCommit: () => void;
  /** Made once: better-sqlite3 turns a nested transaction into a savepoint. */
  readonly #inSavepoint: (work: () => unknown) => unknown;
  readonly #commitBatch: Database.Transaction<(batch: Pending[], outcomes: Outcome[]) => void>;
  #pending: Pending[] = [];

  constructor(db: Database.Database, afterCommit: () => void) {
    this.#afterCommit = afterCommit;
    this.#inSavepoint = db.transaction((work: () => unknown) => work());
    this.#commitBatch = db.transaction((batch: Pending[], outcomes: Outcome[]) => {
      for (const { work } of batch) {
        try {
          outcomes.push({ ok: true, value: this.#inSavepoint(work) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#pending.length === 0) setImmediate(() => this.#flush());
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    const outcomes: Outcome[] = [];
    try {
      this.#commitBatch.immediate(batch, outcomes);
    } catch (error) {
      // Nothing of the batch committed (the lock could not be had, or the commit failed).
      for (const { reject } of batch) reject(error);
      return;
    } finally {
      this.#afterCommit();
    }
    batch.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }
}
