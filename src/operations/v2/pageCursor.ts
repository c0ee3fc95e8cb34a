// The cursor of API v2's listOrders: opaque to clients, it names where the next page starts (after the last
// order its page listed or examined) and the filters the page was read with. A position by id, never an
// offset, so pages stay stable under writes.
import { hash } from 'node:crypto';
import type { OrderFilter } from '../../store/store.js';

/**
 * A cursor is base64url JSON, `{"a":<the id the next page starts after>,"f":<digest of the filters>}`. It is
 * not signed: it grants nothing a client could not ask for without it, since any id and any filters may be
 * asked for.
 */
export function writeCursor(afterId: number, filter: OrderFilter): string {
  return Buffer.from(JSON.stringify({ a: afterId, f: filterDigest(filter) })).toString('base64url');
}

export type CursorReading = { afterId: number } | { problem: 'invalid_cursor' | 'cursor_mismatch' };

/** Where the page after `cursor` starts, if the server made `cursor` for these very filters. */
export function readCursor(cursor: string, filter: OrderFilter): CursorReading {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return { problem: 'invalid_cursor' };
  }
  const { a: afterId, f: digest } = (position ?? {}) as { a?: unknown; f?: unknown };
  if (!Number.isSafeInteger(afterId) || (afterId as number) < 0 || typeof digest !== 'string') {
    return { problem: 'invalid_cursor' };
  }
  if (digest !== filterDigest(filter)) return { problem: 'cursor_mismatch' };
  return { afterId: afterId as number };
}

/**
 * How each field of the filters enters a cursor's digest, in that order, made the same however it was
 * written (statuses in any order; bounds in any zone are read as UTC instants before). Every field of
 * OrderFilter must have its place, or `tsc` fails: a new filter binds cursors with no one remembering to.
 * A new field goes last, so that cursors made before it stay valid.
 */
const DIGESTED: { [Field in keyof Required<OrderFilter>]: (value: OrderFilter[Field]) => unknown } = {
  statuses: (statuses) => [...statuses].sort(),
  petId: (petId) => petId,
  complete: (complete) => complete,
  shipDateFrom: (from) => from,
  shipDateBefore: (before) => before,
};

const DIGESTED_FIELDS = Object.keys(DIGESTED) as (keyof OrderFilter)[];

function filterDigest(filter: OrderFilter): string {
  const canonical = JSON.stringify(
    DIGESTED_FIELDS.map((field) => (DIGESTED[field] as (value: unknown) => unknown)(filter[field])),
  );
  return hash('sha256', canonical, 'base64url').slice(0, 16);
}
