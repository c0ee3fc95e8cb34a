// Group commit: the writes that arrive in one turn of the event loop share one IMMEDIATE transaction, and
// so one fsync under synchronous=FULL. Each caller's promise settles only after that transaction has
// committed, so an answer is never sent for a write that is not on disk. Each write runs in a savepoint of
// its own: one that throws is rolled back alone, and the others still commit.
//
// When another process holds the write lock, the batch waits for it here, between turns of the event loop,
// rather than in SQLite's busy handler, which would block the thread and stall every read with it. A
// write that has waited `writeWaitMs` fails with SQLITE_BUSY (503 with Retry-After).
import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  deadline: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const FIRST_RETRY_MS = 2;
const LONGEST_RETRY_MS = 50;

export class GroupCommit {
  readonly #afterCommit: () => void;
  readonly #writeWaitMs: number;
  /** Made once: better-sqlite3 turns a nested transaction into a savepoint. */
  readonly #inSavepoint: (work: () => unknown) => unknown;
  readonly #commitBatch: Database.Transaction<(batch: Pending[], outcomes: Outcome[]) => void>;
  #pending: Pending[] = [];
  #retryInMs = FIRST_RETRY_MS;

  constructor(db: Database.Database, afterCommit: () => void, writeWaitMs: number) {
    this.#afterCommit = afterCommit;
    this.#writeWaitMs = writeWaitMs;
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
      // A non-empty queue already has a flush coming: this turn's, or the retry of a waiting batch.
      if (this.#pending.length === 0) setImmediate(() => this.#flush());
      this.#pending.push({
        work,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadline: Date.now() + this.#writeWaitMs,
      });
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    const outcomes: Outcome[] = [];
    try {
      this.#commitBatch.immediate(batch, outcomes);
    } catch (error) {
      // Nothing of the batch committed.
      if (isBusy(error)) return this.#waitForLock(batch, error);
      for (const { reject } of batch) reject(error);
      return;
    } finally {
      this.#afterCommit();
    }
    this.#retryInMs = FIRST_RETRY_MS;
    batch.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }

  #waitForLock(batch: Pending[], busy: unknown): void {
    const now = Date.now();
    const waiting = batch.filter((pending) => {
      if (pending.deadline > now) return true;
      pending.reject(busy);
      return false;
    });
    this.#pending = [...waiting, ...this.#pending];
    if (this.#pending.length === 0) return;
    setTimeout(() => this.#flush(), this.#retryInMs);
    this.#retryInMs = Math.min(this.#retryInMs * 2, LONGEST_RETRY_MS);
  }
}

function isBusy(error: unknown): boolean {
  return (error as { code?: string } | null)?.code?.startsWith('SQLITE_BUSY') ?? false;
}
