// The one connection the store's tables share: its clock, its two ways to write, and how its caches learn
// that the data may have changed.
import type Database from 'better-sqlite3';
import { GroupCommit } from './groupCommit.js';

export class Connection {
  readonly db: Database.Database;
  /** Writes of one turn of the event loop, in one transaction; see groupCommit.ts. */
  readonly groupCommit: GroupCommit;
  readonly #clock: () => Date;
  readonly #dataVersion;
  /** Commits made through this connection, which `data_version` does not count. */
  #ownWrites = 0;
  #stamp: string | undefined;

  constructor(db: Database.Database, clock: () => Date, writeWaitMs: number) {
    this.db = db;
    this.#clock = clock;
    this.#dataVersion = db.prepare(`PRAGMA data_version`).pluck();
    this.groupCommit = new GroupCommit(db, () => this.#changed(), writeWaitMs);
  }

  /** The time as every timestamp column holds it: ISO 8601 in UTC. */
  now(): string {
    return this.#clock().toISOString();
  }

  /** `work` in an IMMEDIATE transaction of its own, for the operator's writes, which need not share one. */
  immediate<T>(work: () => T): T {
    try {
      return this.db.transaction(work).immediate();
    } finally {
      this.#changed();
    }
  }

  /**
   * Changes whenever the database may have changed: `data_version` counts other connections' commits.
   * It is read once per turn of the event loop: a request that arrives after another process committed
   * is read from its socket in a later turn, after the check phase has cleared the stamp.
   */
  changeStamp(): string {
    if (this.#stamp === undefined) {
      this.#stamp = `${this.#dataVersion.get() as number}-${this.#ownWrites}`;
      setImmediate(() => {
        this.#stamp = undefined;
      });
    }
    return this.#stamp;
  }

  #changed(): void {
    this.#ownWrites++;
    this.#stamp = undefined;
  }
}
