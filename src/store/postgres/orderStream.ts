// The long order list, each order's JSON text built by PostgreSQL and streamed with COPY: one statement,
// so one snapshot, read only as fast as the client takes it (the socket is paused meanwhile), in constant
// memory. Each list holds a connection of a pool of its own, so slow readers never take the API's.
import { type Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { storeErrorFor } from './errors.js';

// CSV with a delimiter and a quote that never occur in the text: text format would double every backslash
// of the JSON. A field the store has no value for is left out, as SQLite's stream leaves it out.
export const ORDERS_AS_JSON = `COPY (
  SELECT '{"id":' || id
    || CASE WHEN pet_id IS NULL THEN '' ELSE ',"petId":' || pet_id END
    || CASE WHEN quantity IS NULL THEN '' ELSE ',"quantity":' || quantity END
    || CASE WHEN ship_date IS NULL THEN '' ELSE ',"shipDate":' || to_json(ship_date)::text END
    || CASE complete WHEN true THEN ',"complete":true' WHEN false THEN ',"complete":false' ELSE '' END
    || '}'
  FROM orders WHERE status <> 'cancelled' ORDER BY id
) TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')`;

/** The error a list ends with when PostgreSQL sends nothing while its reader waits for rows. */
export class ListStalledError extends Error {
  override name = 'ListStalledError';
}

/**
 * At most `capacity` order lists streamed at once. With `stallMs`, a list whose reader waits for rows that
 * PostgreSQL does not send for that long (a stopped server, a partition) is ended with ListStalledError and
 * its connection closed. Time while the reader takes nothing (the COPY is paused by its backpressure) does not count, so
 * a slow reader is never cut; a client-side time-out on the COPY itself could not tell the two apart.
 */
export class OrderListReaders {
  readonly #pool: pg.Pool;
  readonly #stallMs: number | undefined;
  #open = 0;

  constructor(config: pg.PoolConfig, readonly capacity: number, stallMs?: number) {
    this.#stallMs = stallMs;
    this.#pool = new pg.Pool({ ...config, max: capacity });
    // An idle connection that the server drops (a restart) must not bring the process down.
    this.#pool.on('error', () => {});
  }

  /** Each order's JSON text, in batches; `undefined` while `capacity` lists are already being read. */
  stream(): Readable | undefined {
    if (this.#open >= this.capacity) return undefined;
    this.#open++;
    const batches = new LineBatches();
    let released = false;
    let release: (error?: Error) => void = () => {};
    const finish = (error?: Error) => {
      if (released) return;
      released = true;
      this.#open--;
      release(error);
    };
    batches.on('close', () => finish(batches.readableEnded ? undefined : new Error('list abandoned')));
    // A failure ends the list as the store's own error: before the answer's first bytes it is a 503, as
    // any other call's would be, never a driver's error that the HTTP layer must call a bug.
    const fail = (error: unknown) => batches.destroy(storeErrorFor(error) as Error);
    this.#pool.connect().then(
      (client) => {
        // A list given up half-way leaves the connection in the middle of a COPY: it is closed, not reused.
        if (released) return client.release(new Error('list abandoned'));
        // The pool listens to a client's errors only while it is idle; a connection that PostgreSQL ends
        // mid-list (a restart) would otherwise take the process down.
        client.on('error', fail);
        release = (error) => {
          client.off('error', fail);
          client.release(error);
        };
        const copy = client.query(copyTo(ORDERS_AS_JSON));
        copy.on('error', fail);
        if (this.#stallMs !== undefined) watchForStall(copy, batches, this.#stallMs);
        copy.pipe(batches);
      },
      (error: unknown) => {
        finish();
        fail(error);
      },
    );
    return batches;
  }

  /** How many lists are being read now. */
  get inUse(): number {
    return this.#open;
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

/**
 * Ends `batches` when `copy` flows (its reader is ready) and no bytes have come for `stallMs`. Checked on a
 * tick rather than from 'pause' and 'resume', which a pipe does not always emit.
 */
function watchForStall(copy: Readable, batches: LineBatches, stallMs: number): void {
  let lastProgress = Date.now();
  copy.on('data', () => {
    lastProgress = Date.now();
  });
  const tick = setInterval(() => {
    const now = Date.now();
    if (copy.readableFlowing !== true) lastProgress = now;
    else if (now - lastProgress >= stallMs) {
      batches.destroy(new ListStalledError(`PostgreSQL sent no rows for ${stallMs} ms while the list was read`));
    }
  }, Math.max(10, Math.min(1_000, Math.floor(stallMs / 10))));
  tick.unref();
  batches.once('close', () => clearInterval(tick));
}

/** COPY's bytes, cut into lines (one order each), passed on as one batch per chunk read. */
class LineBatches extends Transform {
  readonly #decoder = new StringDecoder('utf8');
  #rest = '';

  constructor() {
    // One batch ahead of the reader, not the sixteen objects a stream buffers by default.
    super({ readableObjectMode: true, readableHighWaterMark: 1 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, batch?: string[]) => void) {
    const lines = (this.#rest + this.#decoder.write(chunk)).split('\n');
    this.#rest = lines.pop() ?? '';
    if (lines.length === 0) return done();
    done(null, lines);
  }

  override _flush(done: (error?: Error | null, batch?: string[]) => void) {
    const last = this.#rest + this.#decoder.end();
    if (last !== '') return done(null, [last]);
    done();
  }
}
