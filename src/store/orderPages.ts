// The SQL of a page of orders (API v2's listOrders), the same for both backends but for how a parameter is
// written. Each status asked for is one arm, read by id from the index that leads with it (or with the
// pet, when one is named); the arms are merged by id. So a page reads at most `limit + 1` rows per status,
// however deep it is, and never sorts more than that.
import { ORDER_STATUSES, type OrderFilter } from './store.js';

/** Writes `value` as the next parameter of the statement (`?` or `$n`). */
export type Parameter = (value: unknown) => string;

/** The page query: `limit + 1` orders after `afterId` matching `filter`, in id order, with their status. */
export function orderPageSql(
  filter: OrderFilter,
  afterId: number,
  limit: number,
  parameter: Parameter,
): string {
  const statuses = ORDER_STATUSES.filter((status) => filter.statuses.includes(status));
  const arms = statuses.map((status, arm) => {
    const conditions = [`status = ${parameter(status)}`, `id > ${parameter(afterId)}`, ...filterConditions(filter, parameter)];
    return `SELECT * FROM (SELECT ${PAGE_COLUMNS} FROM orders WHERE ${conditions.join(' AND ')}
      ORDER BY id LIMIT ${parameter(limit + 1)}) AS arm${arm}`;
  });
  return `${arms.join('\n  UNION ALL ')}\n  ORDER BY id LIMIT ${parameter(limit + 1)}`;
}

/** The WHERE clause of the operator's listing of the orders matching `filter`. */
export function listingCondition(filter: OrderFilter, parameter: Parameter): string {
  const statuses = `status IN (${filter.statuses.map(parameter).join(', ')})`;
  return [statuses, ...filterConditions(filter, parameter)].join(' AND ');
}

/** The conditions of the filters other than status (which orderPageSql makes its arms of). */
function filterConditions(filter: OrderFilter, parameter: Parameter): string[] {
  const conditions: string[] = [];
  if (filter.petId !== undefined) conditions.push(`pet_id = ${parameter(filter.petId)}`);
  if (filter.complete !== undefined) conditions.push(`complete = ${parameter(filter.complete)}`);
  // ISO 8601 instants in UTC, all written alike, compare as text in time order; NULL matches no bound.
  if (filter.shipDateFrom !== undefined) conditions.push(`ship_date >= ${parameter(filter.shipDateFrom)}`);
  if (filter.shipDateBefore !== undefined) conditions.push(`ship_date < ${parameter(filter.shipDateBefore)}`);
  return conditions;
}

const PAGE_COLUMNS = 'id, pet_id, quantity, ship_date, complete, status';
