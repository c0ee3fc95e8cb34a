// The order list, each order's JSON text built by SQLite, read on connections of its own: better-sqlite3
// allows no other statement on a connection while an iterator is open, and a snapshot stays consistent for
// the whole stream. Rows are read only as fast as the client takes them (backpressure).
//
// The connections are kept open and reused, at most `capacity` of them. SQLite cannot really close a
// connection while another one of the same process holds a lock on the file (POSIX locks belong to the
// process, so its unix VFS keeps the file handle until every lock is gone, which in WAL mode is never
// while the server runs): a connection per list would leak a file handle and its memory with every list.
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { SliceTurns } from '../../eventLoopTurns.js';

// A field the store has no value for is left out. Plain concatenation is faster than json_object; the
// only text field goes through json_quote.
const ORDERS_AS_JSON = `
  SELECT '{"id":' || id
    || CASE WHEN pet_id IS NULL THEN '' ELSE ',"petId":' || pet_id END
    || CASE WHEN quantity IS NULL THEN '' ELSE ',"quantity":' || quantity END
    || CASE WHEN ship_date IS NULL THEN '' ELSE ',"shipDate":' || json_quote(ship_date) END
    || CASE complete WHEN 1 THEN ',"complete":true' WHEN 0 THEN ',"complete":false' ELSE '' END
    || '}'
  FROM orders WHERE status <> 'cancelled' ORDER BY id`;

/**
 * The rows read in one turn of the event loop, over every list being streamed: one batch, and none in a turn
 * that accepted a connection (eventLoopTurns.ts). SQLite reads synchronously, so a turn that read a batch for
 * each of many fast lists would keep every other request waiting for all of them.
 */
export const ROWS_PER_TURN = 2_000;

/** A sequential scan gains nothing from a page cache of its own; the operating system's serves it. */
const READER_CACHE_KIB = 256;

interface Reader {
  db: Database.Database;
  orders: Database.Statement<[], string>;
}

/** At most `capacity` order lists streamed at once, each from its own snapshot. */
export class OrderListReaders {
  readonly #idle: Reader[] = [];
  readonly #turns = new SliceTurns();
  #open = 0;
  #closed = false;

  constructor(
    private readonly path: string,
    readonly capacity: number,
  ) {}

  /** Each order's JSON text, in batches; `undefined` while `capacity` lists are already being read. */
  stream(): Readable | undefined {
    const reader = this.#take();
    if (!reader) return undefined;
    return rowBatches(reader.orders.iterate(), this.#turns, () => this.#giveBack(reader));
  }

  /** How many lists are being read now. */
  get inUse(): number {
    return this.#open - this.#idle.length;
  }

  close(): void {
    this.#closed = true;
    for (const { db } of this.#idle.splice(0)) db.close();
  }

  #take(): Reader | undefined {
    const idle = this.#idle.pop();
    if (idle) return idle;
    if (this.#open >= this.capacity) return undefined;
    const db = new Database(this.path, { readonly: true, fileMustExist: true });
    db.pragma(`cache_size = -${READER_CACHE_KIB}`);
    this.#open++;
    return { db, orders: db.prepare<[], string>(ORDERS_AS_JSON).pluck() };
  }

  #giveBack(reader: Reader): void {
    // A stream that ends after the store closed has no pool to go back to.
    if (this.#closed) {
      reader.db.close();
      return;
    }
    this.#idle.push(reader);
  }
}

/**
 * `rows` in batches, an object-mode stream of string arrays. `release` runs once, when the rows have been
 * read to their end or the stream is destroyed (the client went away), after the rows' iterator has let go
 * of its snapshot.
 */
function rowBatches(rows: IterableIterator<string>, turns: SliceTurns, release: () => void): Readable {
  let released = false;
  const finish = () => {
    if (released) return;
    released = true;
    rows.return?.();
    release();
  };
  const stream: Readable = new Readable({
    objectMode: true,
    // One batch ahead of the reader, not the sixteen objects a stream buffers by default.
    highWaterMark: 1,
    read() {
      // Each batch in a turn of its own, shared with every other list: a fast client would otherwise
      // drain the whole list in one turn, and no other request would be served until it ended.
      turns.request(() => {
        try {
          pushNextBatch();
        } catch (error) {
          stream.destroy(error as Error);
        }
      });
    },
    destroy(error, done) {
      finish();
      done(error);
    },
  });

  function pushNextBatch(): void {
    if (stream.destroyed) return;
    const batch: string[] = [];
    while (batch.length < ROWS_PER_TURN) {
      const next = rows.next();
      if (next.done) {
        finish();
        if (batch.length > 0) stream.push(batch);
        stream.push(null);
        return;
      }
      batch.push(next.value);
    }
    stream.push(batch);
  }
  return stream;
}
