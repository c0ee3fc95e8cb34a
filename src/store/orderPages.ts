// The SQL of a page of orders (API v2's listOrders), the same for both backends but for how a parameter is
// written and how the arms are merged (Dialect). The orders a page examines are those of the statuses (and
// the pet) asked for, after the page's start, in id order: each status is one arm, read by id from the index
// that leads with it (or with the pet), and the arms are merged by id as they are read. `complete` and the
// ship date are checked on each order examined. A page examines at most EXAMINED_PER_PAGE orders: however
// few match, its work is bounded, and a page cut short by the bound ends where its examination did, for the
// next page to go on from there.
import { STATUS_COLUMNS } from './rows.js';
import { ORDER_STATUSES, type OrderFilter } from './store.js';

/** Writes `value` as the next parameter of the statement (`?` or `$n`). */
export type Parameter = (value: unknown) => string;

/** What a backend's SQL differs in: how a parameter is written, and how the arms are merged (see examined()). */
export interface Dialect {
  parameter: Parameter;
  arms: 'plain' | 'limited';
}

/**
 * The most orders one page examines. Above the largest `limit` (1,000), so that a page whose orders all match
 * is always full; the same on both backends, so that a walk is the same on either.
 */
export const EXAMINED_PER_PAGE = 10_000;

/** What each row of orderPageSql has besides the order's own columns. */
export interface PageRowBase {
  /** Null in the one row of an empty page. */
  id: number | null;
  /** The same in every row: see orderPageSql. */
  examined_to: number | null;
}

/**
 * The page's orders: the first `limit + 1` orders matching `filter` among the first EXAMINED_PER_PAGE
 * orders after `afterId` that the page examines (see above), with their status, in no set order.
 */
export function pageOrdersSql(filter: OrderFilter, afterId: number, limit: number, dialect: Dialect): string {
  // Every order examined matches: the first limit + 1 examined are the page, one read of the arms.
  if (everyExaminedMatches(filter)) return examined(filter, afterId, STATUS_COLUMNS, dialect, limit + 1);
  // Written left to right: SQLite numbers its parameters in the order of the text.
  const candidates = examined(filter, afterId, STATUS_COLUMNS, dialect);
  const conditions = filterConditions(filter, dialect.parameter);
  return `SELECT ${STATUS_COLUMNS} FROM (${candidates}) AS examined
    ${conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`}
    ORDER BY id LIMIT ${dialect.parameter(limit + 1)}`;
}

/**
 * True when the filter asks nothing the arms do not answer (statuses and pet): every order examined matches,
 * so a page (at most the largest `limit` plus one, far below EXAMINED_PER_PAGE) is never cut short by the
 * bound, and a short page is the last one. Told by filterConditions, so that a filter added there counts.
 */
export function everyExaminedMatches(filter: OrderFilter): boolean {
  return filterConditions(filter, () => '').length === 0;
}

/**
 * `examined_to`, for a page cut short (at most `limit` orders matched): the id of the last order the
 * page examined when the bound stopped it, and null when the orders after `afterId` ran out first.
 */
export function examinedToSql(filter: OrderFilter, afterId: number, dialect: Dialect): string {
  return `SELECT CASE WHEN count(*) = ${dialect.parameter(EXAMINED_PER_PAGE)} THEN max(id) END AS examined_to
    FROM (${examined(filter, afterId, 'id', dialect)}) AS reached`;
}

/**
 * Both parts in one statement, for a backend a round trip away: the page's orders, each row with
 * `examined_to` of examinedToSql (a single row of nulls when none matches). The count of the examined
 * orders is read again from the index alone, and only when the page is short: a CASE branch not taken is
 * never evaluated.
 */
export function orderPageSql(filter: OrderFilter, afterId: number, limit: number, dialect: Dialect): string {
  const page = `WITH page AS (${pageOrdersSql(filter, afterId, limit, dialect)})`;
  const reach = `SELECT CASE WHEN (SELECT count(*) FROM page) <= ${dialect.parameter(limit)} THEN (
      ${examinedToSql(filter, afterId, dialect)}
    ) END AS examined_to`;
  return `${page}
  SELECT reach.examined_to, page.* FROM (${reach}) AS reach LEFT JOIN page ON true`;
}

/**
 * The page's orders (at most `limit`, in id order) and where the next page starts: after the last order
 * returned when more matched, after the last order examined when the bound stopped the page (`examinedTo`,
 * asked only then); undefined on the last page.
 */
export function cutPage<Row extends { id: number | null }>(
  rows: readonly Row[],
  limit: number,
  examinedTo: () => number | null,
): { rows: Row[]; nextAfterId: number | undefined } {
  const matched = rows.filter((row) => row.id !== null).sort((a, b) => Number(a.id) - Number(b.id));
  if (matched.length > limit) return { rows: matched.slice(0, limit), nextAfterId: Number(matched[limit - 1]?.id) };
  const reached = examinedTo();
  return { rows: matched, nextAfterId: reached === null ? undefined : Number(reached) };
}

/** The WHERE clause of the operator's listing of the orders matching `filter`. */
export function listingCondition(filter: OrderFilter, parameter: Parameter): string {
  const conditions = [`status IN (${filter.statuses.map(parameter).join(', ')})`];
  if (filter.petId !== undefined) conditions.push(`pet_id = ${parameter(filter.petId)}`);
  return [...conditions, ...filterConditions(filter, parameter)].join(' AND ');
}

/**
 * The first `bound` orders a page after `afterId` examines, in id order: one arm per status, each
 * read from its index in id order, merged as they are read, so that no more orders are read than taken.
 * The planners need it written two ways: SQLite merges plain arms (MERGE (UNION ALL)) but sorts arms that
 * are subqueries with their own LIMIT; PostgreSQL merges only those (Merge Append), and appends and sorts
 * plain ones, after reading each to its end.
 */
function examined(
  filter: OrderFilter,
  afterId: number,
  columns: string,
  { parameter, arms: merge }: Dialect,
  bound = EXAMINED_PER_PAGE,
): string {
  const statuses = ORDER_STATUSES.filter((status) => filter.statuses.includes(status));
  const arms = statuses.map((status, arm) => {
    const conditions = [`status = ${parameter(status)}`, `id > ${parameter(afterId)}`];
    if (filter.petId !== undefined) conditions.push(`pet_id = ${parameter(filter.petId)}`);
    const read = `SELECT ${columns} FROM orders WHERE ${conditions.join(' AND ')}`;
    return merge === 'plain' ? read : `SELECT * FROM (${read} ORDER BY id LIMIT ${parameter(bound)}) AS arm${arm}`;
  });
  return `SELECT ${columns} FROM (${arms.join(' UNION ALL ')}) AS arms ORDER BY id LIMIT ${parameter(bound)}`;
}

/** The conditions of the filters the index does not answer (the listing adds status and pet to them). */
function filterConditions(filter: OrderFilter, parameter: Parameter): string[] {
  const conditions: string[] = [];
  if (filter.complete !== undefined) conditions.push(`complete = ${parameter(filter.complete)}`);
  // ISO 8601 instants in UTC, all written alike, compare as text in time order; NULL matches no bound.
  if (filter.shipDateFrom !== undefined) conditions.push(`ship_date >= ${parameter(filter.shipDateFrom)}`);
  if (filter.shipDateBefore !== undefined) conditions.push(`ship_date < ${parameter(filter.shipDateBefore)}`);
  return conditions;
}

