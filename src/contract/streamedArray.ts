// A JSON array too long to hold in memory: a handler may answer with one where the contract documents an
// array. Its text is produced in chunks, with the event loop free between them.
import type { Readable } from 'node:stream';

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
