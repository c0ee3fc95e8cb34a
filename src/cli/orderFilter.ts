// `orders list`'s filters: API v2's listOrders filters, with the same meaning, written as options.
import { instantAtOrAfter, type ShipDateRange, shipDateRange } from '../contract/instants.js';
import { ORDER_STATUSES, type OrderFilter, type OrderStatus } from '../store/store.js';
import { parseId } from './args.js';
import { UsageError } from './io.js';
import { isDateTime } from './orderRows.js';

export const FILTER_OPTIONS = {
  status: 'string',
  'pet-id': 'string',
  complete: 'string',
  'ship-date-from': 'string',
  'ship-date-before': 'string',
} as const;

export const FILTER_HELP = [
  '  --status S[,S…]          only these statuses: pending, shipped, cancelled (default: all three)',
  '  --pet-id N               only the orders of this pet',
  '  --complete true|false    only the orders whose complete is this',
  '  --ship-date-from ISO     only the orders shipping at this instant or later',
  '  --ship-date-before ISO   only the orders shipping before this instant (orders without a ship date',
  '                           match neither bound)',
];

type FilterValues = { [name in keyof typeof FILTER_OPTIONS]?: string };

/** The filter the options ask for; every status when none is named. */
export function parseOrderFilter(values: FilterValues): OrderFilter {
  const filter: OrderFilter = { statuses: values.status === undefined ? ORDER_STATUSES : parseStatuses(values.status) };
  if (values['pet-id'] !== undefined) filter.petId = parseId(values['pet-id'], '--pet-id');
  if (values.complete !== undefined) {
    if (values.complete !== 'true' && values.complete !== 'false') {
      throw new UsageError(`--complete must be true or false, got "${values.complete}"`);
    }
    filter.complete = values.complete === 'true';
  }
  const bounds: ShipDateRange = {};
  if (values['ship-date-from'] !== undefined) {
    bounds.shipDateFrom = instant(values['ship-date-from'], '--ship-date-from');
  }
  if (values['ship-date-before'] !== undefined) {
    bounds.shipDateBefore = instant(values['ship-date-before'], '--ship-date-before');
  }
  return { ...filter, ...shipDateRange(bounds) };
}

function parseStatuses(raw: string): OrderStatus[] {
  const statuses = raw.split(',');
  const unknown = statuses.find((status) => !(ORDER_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) {
    throw new UsageError(`--status takes ${ORDER_STATUSES.join(', ')}, separated by commas; got "${unknown}"`);
  }
  return [...new Set(statuses as OrderStatus[])];
}

/** A date-time as the contract takes a ship date, as the instant a bound starts at (as API v2 reads it). */
function instant(raw: string, option: string): string {
  const fail = () => new UsageError(`${option} must be an ISO 8601 date-time with a time zone, like 2026-12-01T09:00:00Z`);
  // A bound may lie beyond the ship dates the store keeps (shipDateRange moves it), or be a leap second.
  const bound = isDateTime(raw) ? instantAtOrAfter(raw) : undefined;
  if (bound === undefined) throw fail();
  return bound;
}
