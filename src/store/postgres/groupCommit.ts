// Group commit on PostgreSQL: the writes of one kind that arrive in one turn of the event loop go to
// PostgreSQL together, as one statement and one transaction, as SQLite's group commit does
// (sqlite/groupCommit.ts). Under load a commit, a round trip and a statement serve many requests; a write
// that comes alone waits only for the end of its turn. Each statement waits for a connection and for
// PostgreSQL under the pool's bounds, as every statement does, and each write settles after its commit.
// A statement that fails writes none of its writes. When the failure is the database's (unreachable,
// busy, full: errors.ts), each write fails with it, as each would have alone; any other failure may be
// one write's own (a constraint), so each is then made alone, and only that one fails.
import { storeErrorFor } from './errors.js';

/** The most writes one statement carries, which bounds its size and the time it takes. */
const MOST_PER_STATEMENT = 100;

interface Pending<Write, Outcome> {
  write: Write;
  settle: (outcome: Outcome | Promise<Outcome>) => void;
  fail: (error: unknown) => void;
}

export class GroupCommit<Write, Outcome> {
  readonly #alone: (write: Write) => Promise<Outcome>;
  readonly #together: (writes: readonly Write[]) => Promise<readonly (Outcome | Promise<Outcome>)[]>;
  #pending: Pending<Write, Outcome>[] = [];

  /**
   * `alone` writes one; `together` writes many in one transaction, all or none, and answers their outcomes
   * in their order (an outcome may still be coming: a write it left to be done `alone`).
   */
  constructor(
    alone: (write: Write) => Promise<Outcome>,
    together: (writes: readonly Write[]) => Promise<readonly (Outcome | Promise<Outcome>)[]>,
  ) {
    this.#alone = alone;
    this.#together = together;
  }

  /** Settles once the write is committed; rejects when its statement fails, with nothing of it written. */
  run(write: Write): Promise<Outcome> {
    return new Promise((settle, fail) => {
      if (this.#pending.length === 0) setImmediate(() => this.#flush());
      this.#pending.push({ write, settle, fail });
    });
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (let from = 0; from < pending.length; from += MOST_PER_STATEMENT) {
      const batch = pending.slice(from, from + MOST_PER_STATEMENT);
      if (batch.length === 1) {
        this.#eachAlone(batch);
        continue;
      }
      this.#together(batch.map(({ write }) => write)).then(
        (outcomes) => batch.forEach(({ settle }, i) => settle(outcomes[i] as Outcome | Promise<Outcome>)),
        (error: unknown) => {
          if (storeErrorFor(error) !== error) batch.forEach(({ fail }) => fail(error));
          else this.#eachAlone(batch);
        },
      );
    }
  }

  #eachAlone(batch: readonly Pending<Write, Outcome>[]): void {
    for (const { write, settle, fail } of batch) this.#alone(write).then(settle, fail);
  }
}
