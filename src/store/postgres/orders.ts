// Orders: the API's list and cancellation, and the operator's additions, shipping and listings.
import type { Pool } from 'pg';
import { cutPage, type Dialect, listingCondition, orderPageSql, type PageRowBase, type Parameter } from '../orderPages.js';
import type {
  CancelOutcome,
  NewOrder,
  Order,
  OrderFilter,
  OrderList,
  OrderPage,
  OrderPageQuery,
  OrderStatus,
  OrderWithStatus,
  ShipOutcome,
  StoredOrder,
} from '../store.js';
import type { OrderListReaders } from './orderStream.js';

const ORDER_COLUMNS = `id, pet_id AS "petId", quantity, ship_date AS "shipDate", complete`;
const STORED_ORDER_COLUMNS = `${ORDER_COLUMNS}, status, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** How many commits changed orders, as this statement's snapshot sees them (migration 2). */
const ORDER_CHANGES = `SELECT ((SELECT changes FROM order_changes_base)
  + (SELECT count(*) FROM order_changes))::text AS changes`;

/**
 * The count of order changes, the count of orders shown (up to $1) and, when there are fewer than $1, the
 * orders themselves: one statement, so one snapshot, which the count then names exactly.
 */
const READ_LIST = `
  SELECT current.changes, counted.shown, o.id, o."petId", o.quantity, o."shipDate", o.complete
  FROM (${ORDER_CHANGES}) current
  CROSS JOIN (
    SELECT count(*)::integer AS shown FROM (SELECT 1 FROM orders WHERE status <> 'cancelled' LIMIT $1) c
  ) counted
  LEFT JOIN LATERAL (
    SELECT ${ORDER_COLUMNS} FROM orders WHERE status <> 'cancelled' AND counted.shown < $1
  ) o ON true
  ORDER BY o.id`;

type ListRow = { changes: string; shown: number } & { [K in keyof Order]: Order[K] | null };

export interface OrderListOptions {
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove: number;
}

interface OrdersOptions extends OrderListOptions {
  /** How long a move may take in PostgreSQL before it gives up, writing nothing (null: no limit). */
  writeBudgetMs: number | null;
}

export class Orders {
  readonly #pool: Pool;
  readonly #readers: OrderListReaders;
  readonly #now: () => string;
  readonly #streamOrdersAbove: number;
  readonly #databaseId: string;
  readonly #writeBudgetMs: number | null;
  #list: { changes: string; list: OrderList } | undefined;

  constructor(
    pool: Pool,
    readers: OrderListReaders,
    now: () => string,
    databaseId: string,
    { streamOrdersAbove, writeBudgetMs }: OrdersOptions,
  ) {
    this.#writeBudgetMs = writeBudgetMs;
    this.#pool = pool;
    this.#readers = readers;
    this.#now = now;
    this.#databaseId = databaseId;
    this.#streamOrdersAbove = streamOrdersAbove;
  }

  /**
   * The version is the database's identity and the count of commits that changed orders (migration 2):
   * the same in every server on the database, and it never goes back. The list is read again only after
   * orders changed; the check costs one round trip per list, which is what makes a change on another
   * server seen by the next request.
   */
  async list(): Promise<OrderList> {
    const last = this.#list;
    if (last) {
      const { rows } = await this.#pool.query<{ changes: string }>(ORDER_CHANGES);
      if (rows[0]?.changes === last.changes) return last.list;
    }
    const { rows } = await this.#pool.query<ListRow>(READ_LIST, [this.#streamOrdersAbove + 1]);
    const [first] = rows;
    if (!first) throw new Error('the order list query returned no row');
    const version = `${this.#databaseId}-${first.changes}`;
    let list: OrderList;
    if (first.shown > this.#streamOrdersAbove) {
      const readers = this.#readers;
      list = { version, rows: () => readers.stream() };
    } else {
      const orders = first.id === null ? [] : rows.map(asOrder);
      list = { version, orders: Object.freeze(orders) };
    }
    this.#list = { changes: first.changes, list };
    return list;
  }

  /** The page and the count of order changes, in one statement: from one snapshot. */
  async page({ filter, afterId, limit }: OrderPageQuery): Promise<OrderPage> {
    const values: unknown[] = [];
    const page = orderPageSql(filter, afterId, limit, pageDialect(values));
    const { rows } = await this.#pool.query<PageRow>(
      `SELECT current.changes, p.examined_to, p.id, p.pet_id AS "petId", p.quantity, p.ship_date AS "shipDate",
         p.complete, p.status
       FROM (${ORDER_CHANGES}) current CROSS JOIN (${page}) p ORDER BY p.id`,
      values,
    );
    const [first] = rows;
    if (!first) throw new Error('the order page query returned no row');
    const { rows: orders, nextAfterId } = cutPage(rows, limit);
    return { version: `${this.#databaseId}-${first.changes}`, orders: orders.map(asOrderWithStatus), nextAfterId };
  }

  async cancel(orderId: number): Promise<CancelOutcome> {
    if (!Number.isSafeInteger(orderId)) return 'missing';
    const found = await this.#move(orderId, 'pending', 'cancelled');
    if (found === 'pending') return 'cancelled';
    return found === 'shipped' ? 'shipped' : 'missing';
  }

  async ship(orderId: number): Promise<ShipOutcome> {
    if (!Number.isSafeInteger(orderId)) return 'missing';
    const found = await this.#move(orderId, 'pending', 'shipped');
    if (found === 'pending') return 'shipped';
    return found === null ? 'missing' : 'not_pending';
  }

  async countByStatus(): Promise<Record<OrderStatus, number>> {
    const counts: Record<OrderStatus, number> = { pending: 0, shipped: 0, cancelled: 0 };
    const { rows } = await this.#pool.query<{ status: OrderStatus; count: number }>(
      `SELECT status, count(*)::integer AS count FROM orders GROUP BY status`,
    );
    for (const { status, count } of rows) counts[status] = count;
    return counts;
  }

  async add(order: NewOrder): Promise<StoredOrder> {
    const now = this.#now();
    const { rows } = await this.#pool.query<StoredOrder>(
      `INSERT INTO orders (pet_id, quantity, ship_date, complete, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${STORED_ORDER_COLUMNS}`,
      [...orderValues(order), now],
    );
    return withoutNulls(rows[0] as StoredOrder);
  }

  /** All or nothing: one statement. */
  async addAll(orders: readonly NewOrder[]): Promise<number> {
    if (orders.length === 0) return 0;
    const now = this.#now();
    const columns = orders.map(orderValues);
    const { rowCount } = await this.#pool.query(
      `INSERT INTO orders (pet_id, quantity, ship_date, complete, status, created_at, updated_at)
       SELECT pet_id, quantity, ship_date, complete, status, $6, $6
       FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::boolean[], $5::text[])
         WITH ORDINALITY AS o (pet_id, quantity, ship_date, complete, status, n)
       ORDER BY n`,
      [0, 1, 2, 3, 4].map((column) => columns.map((values) => values[column])).concat([now]),
    );
    return rowCount ?? 0;
  }

  async find(orderId: number): Promise<StoredOrder | undefined> {
    if (!Number.isSafeInteger(orderId)) return undefined;
    const { rows } = await this.#pool.query<StoredOrder>(
      `SELECT ${STORED_ORDER_COLUMNS} FROM orders WHERE id = $1`,
      [orderId],
    );
    return rows[0] && withoutNulls(rows[0]);
  }

  async listAll(filter?: OrderFilter): Promise<StoredOrder[]> {
    const values: unknown[] = [];
    const where = filter ? `WHERE ${listingCondition(filter, parameterInto(values))}` : '';
    const { rows } = await this.#pool.query<StoredOrder>(
      `SELECT ${STORED_ORDER_COLUMNS} FROM orders ${where} ORDER BY id`,
      values,
    );
    return rows.map(withoutNulls<StoredOrder>);
  }

  /** The status the order had once locked (null: no such order); moved to `to` if it was `from`. */
  async #move(orderId: number, from: OrderStatus, to: OrderStatus): Promise<OrderStatus | null> {
    const { rows } = await this.#pool.query<{ found: OrderStatus | null }>(
      `SELECT move_order($1, $2, $3, $4, $5) AS found`,
      [orderId, from, to, this.#now(), this.#writeBudgetMs],
    );
    return rows[0]?.found ?? null;
  }
}

type PageRow = { changes: string } & PageRowBase & { [K in keyof OrderWithStatus]: OrderWithStatus[K] | null };

/** PostgreSQL's parameters are numbered. */
function parameterInto(values: unknown[]): Parameter {
  return (value) => `$${values.push(value)}`;
}

/** How PostgreSQL's page query is written, its parameters' values going to `values`. */
export function pageDialect(values: unknown[]): Dialect {
  return { parameter: parameterInto(values), arms: 'limited' };
}

function asOrderWithStatus({ id, petId, quantity, shipDate, complete, status }: PageRow): OrderWithStatus {
  return withoutNulls({ id, petId, quantity, shipDate, complete, status });
}

function asOrder({ id, petId, quantity, shipDate, complete }: ListRow): Order {
  return withoutNulls({ id, petId, quantity, shipDate, complete });
}

function orderValues({ petId, quantity, shipDate, complete, status }: NewOrder) {
  return [petId ?? null, quantity ?? null, shipDate ?? null, complete ?? false, status ?? 'pending'];
}

/** A row as the API shows it: a field the store has no value for is left out. */
export function withoutNulls<T>(row: object): T {
  const value: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(row)) {
    if (field !== null) value[name] = field;
  }
  return value as T;
}
