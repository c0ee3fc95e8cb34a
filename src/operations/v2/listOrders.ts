// GET /v2/store/orders: one page of the orders that match the filters, in id order, with the way to the
// next page in the body (nextCursor) and in a Link header. Conditional requests are handled in http/.
import { andThen } from '../../awaitable.js';
import { apiError } from '../../contract/errorBody.js';
import { holdsNoInstant, instantAtOrAfter, type ShipDateRange, shipDateRange } from '../../contract/instants.js';
import type { Input } from '../../contract/types.js';
import type { OrderFilter } from '../../store/store.js';
import type { Handler } from '../handler.js';
import { readCursor, writeCursor } from './pageCursor.js';
import { nextPageLink } from './pageLink.js';

const PATH = '/v2/store/orders';
/** The contract's default `limit`. */
const DEFAULT_LIMIT = 100;
/** Cancelled orders are listed only when asked for. */
const DEFAULT_STATUSES = ['pending', 'shipped'] as const;

type Query = NonNullable<Input<'listOrders', 'v2'>['query']>;

export const listOrders: Handler<'listOrders', 'v2'> = ({ query = {} }, { store }) => {
  const filter = filterOf(query);
  if ('refusal' in filter) return filter.refusal;
  let afterId = 0;
  if (query.cursor !== undefined) {
    const position = readCursor(query.cursor, filter);
    if ('problem' in position) return CURSOR_REFUSALS[position.problem];
    afterId = position.afterId;
  }
  // The store holds ids as JavaScript numbers: no pet beyond 2^53 - 1 has orders. A ship-date range that
  // holds no instant matches no order: the answer needs no walk through pages that examine them all.
  if ((filter.petId !== undefined && !Number.isSafeInteger(filter.petId)) || holdsNoInstant(filter)) {
    return { status: 200, body: { data: [], hasMore: false } };
  }
  return andThen(store.listOrderPage({ filter, afterId, limit: query.limit ?? DEFAULT_LIMIT }), (page) => {
    const data = [...page.orders];
    if (page.nextAfterId === undefined) return { status: 200, body: { data, hasMore: false } };
    // After the last order examined, which may be past the last one listed: a page may be short, even empty.
    const nextCursor = writeCursor(page.nextAfterId, filter);
    return {
      status: 200,
      body: { data, hasMore: true, nextCursor },
      headers: { Link: nextPageLink(PATH, query, nextCursor) },
    };
  });
};

const CURSOR_REFUSALS = {
  invalid_cursor: apiError('invalid_cursor', 'This cursor is not one the server made; start again without a cursor'),
  cursor_mismatch: apiError(
    'cursor_mismatch',
    'This cursor was made for other filters; send the filters of its page, or start again without a cursor',
  ),
};

function filterOf(query: Query): OrderFilter | { refusal: ReturnType<typeof unreadableInstant> } {
  const filter: OrderFilter = { statuses: query.status ?? DEFAULT_STATUSES };
  if (query.petId !== undefined) filter.petId = query.petId;
  if (query.complete !== undefined) filter.complete = query.complete;
  const bounds: ShipDateRange = {};
  for (const bound of ['shipDateFrom', 'shipDateBefore'] as const) {
    const dateTime = query[bound];
    if (dateTime === undefined) continue;
    const instant = instantAtOrAfter(dateTime);
    if (instant === undefined) return { refusal: unreadableInstant(bound) };
    bounds[bound] = instant;
  }
  return { ...filter, ...shipDateRange(bounds) };
}

function unreadableInstant(bound: string) {
  return apiError('invalid_request', `${bound}: must be a date-time with a time zone, like 2026-12-01T00:00:00Z`);
}
