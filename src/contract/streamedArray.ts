// A JSON array too long to hold in memory: a handler may answer with one where the contract documents an
// array. Its text is produced in chunks, with the event loop free between them. The array's framing (the
// brackets and commas around the items a store streams) is written here and nowhere else.
import { pipeline, type Readable, Transform } from 'node:stream';

export interface StreamedArray {
  readonly streamed: true;
  /** Changes whenever the array may have changed; it is the ETag, so it is known before any chunk. */
  readonly version: string;
  /**
   * The JSON text, from a consistent snapshot, read as fast as the client takes it; `undefined` while as
   * many arrays are being read as the store allows at once.
   */
  open(): Readable | undefined;
}

export function isStreamedArray(value: unknown): value is StreamedArray {
  return typeof value === 'object' && value !== null && (value as { streamed?: unknown }).streamed === true;
}

/**
 * The array whose items come from `openItems`: an object-mode stream of batches, each an array of items'
 * JSON texts. Destroying the text (the client went away) destroys the items' stream, which lets its
 * snapshot go.
 */
export function streamedArray(version: string, openItems: () => Readable | undefined): StreamedArray {
  return {
    streamed: true,
    version,
    open() {
      const items = openItems();
      if (items === undefined) return undefined;
      let first = true;
      const text = new Transform({
        writableObjectMode: true,
        writableHighWaterMark: 1,
        transform(batch: readonly string[], _encoding, done) {
          if (batch.length === 0) return done();
          done(null, `${first ? '[' : ','}${batch.join(',')}`);
          first = false;
        },
        flush(done) {
          done(null, first ? '[]' : ']');
        },
      });
      // The callback is where a failure ends: the text stream is destroyed with it, which ends the answer.
      return pipeline(items, text, () => {});
    },
  };
}
