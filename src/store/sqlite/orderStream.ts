// The order list as JSON text built by SQLite, read on a connection of its own: better-sqlite3
// allows no other statement on a connection while an iterator is open, and the snapshot stays consistent
// for the whole stream. Rows are read only as fast as the client takes them (backpressure).
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';

// A field the store has no value for is left out. Plain concatenation is about twice as fast as
// json_object; the only text field goes through json_quote.
const ORDERS_AS_JSON = `
  SELECT '{"id":' || id
    || CASE WHEN pet_id IS NULL THEN '' ELSE ',"petId":' || pet_id END
    || CASE WHEN quantity IS NULL THEN '' ELSE ',"quantity":' || quantity END
    || CASE WHEN ship_date IS NULL THEN '' ELSE ',"shipDate":' || json_quote(ship_date) END
    || CASE complete WHEN 1 THEN ',"complete":true' WHEN 0 THEN ',"complete":false' ELSE '' END
    || '}'
  FROM orders WHERE status <> 'cancelled' ORDER BY id`;

/** About 180 KiB of JSON, a few milliseconds of work, per chunk. */
const ROWS_PER_CHUNK = 2_000;

export function streamOrders(path: string): Readable {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const rows = db.prepare<[], string>(ORDERS_AS_JSON).pluck().iterate();
  let first = true;
  const stream: Readable = new Readable({
    read() {
      // Each chunk in a turn of its own: a fast client would otherwise drain the whole list in one turn,
      // and no other request would be served until it ended.
      setImmediate(() => {
        try {
          pushNextChunk();
        } catch (error) {
          // The status line is long gone: all that is left is to end the response early.
          stream.destroy(error as Error);
        }
      });
    },
    destroy(error, done) {
      rows.return?.();
      db.close();
      done(error);
    },
  });

  function pushNextChunk(): void {
    if (stream.destroyed) return;
    const chunk: string[] = [];
    while (chunk.length < ROWS_PER_CHUNK) {
      const next = rows.next();
      if (next.done) {
        const separator = first ? '[' : chunk.length > 0 ? ',' : '';
        stream.push(`${separator}${chunk.join(',')}]`);
        stream.push(null);
        return;
      }
      chunk.push(next.value);
    }
    stream.push(`${first ? '[' : ','}${chunk.join(',')}`);
    first = false;
  }
  return stream;
}
