// The cursors of v2's webhook lists: opaque to clients, each names the position the next page starts from
// in one list (an endpoint's or an attempt's place in the store, never an offset) and which list it is for,
// so that a cursor of one list is refused by another. Not signed: it grants nothing a client could not ask
// for without it, since every list is of the caller's own account.
import { apiError } from '../../contract/errorBody.js';

/** The lists, each with the one key its cursors hold: `{"we":5}` is after the endpoint at position 5. */
export const LISTS = { endpoints: 'we', deliveries: 'wd' } as const;
export type PagedList = keyof typeof LISTS;

export function writePosition(list: PagedList, position: number): string {
  return Buffer.from(JSON.stringify({ [LISTS[list]]: position })).toString('base64url');
}

/** The position `cursor` names in `list` (0, the start, when there is none), or the refusal to answer. */
export function readPosition(list: PagedList, cursor: string | undefined): number | typeof INVALID_CURSOR {
  if (cursor === undefined) return 0;
  let read: unknown;
  try {
    read = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return INVALID_CURSOR;
  }
  const position = (read as Record<string, unknown> | null)?.[LISTS[list]];
  const onlyKey = typeof read === 'object' && read !== null && Object.keys(read).length === 1;
  return onlyKey && Number.isSafeInteger(position) && (position as number) > 0 ? (position as number) : INVALID_CURSOR;
}

export const INVALID_CURSOR = apiError(
  'invalid_cursor',
  'This cursor is not one the server made for this list; start again without a cursor',
);
