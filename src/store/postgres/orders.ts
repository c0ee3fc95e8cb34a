// Orders: the API's list, pages and cancellation, and the operator's additions, shipping and listings.
import type { Pool } from 'pg';
import type { OrderRepository } from '../backend.js';
import { cutPage, type Dialect, listingCondition, orderPageSql, type PageRowBase, type Parameter } from '../orderPages.js';
import type { OrderRow, StatusRow, StoredOrderRow } from '../rows.js';
import * as mapped from '../rows.js';
import {
  type NewOrder,
  type OrderFilter,
  type OrderList,
  type OrderPage,
  type OrderPageQuery,
  type OrderStatus,
  type StoredOrder,
  UNAUTHORIZED,
  type Unauthorized,
} from '../store.js';
import { GroupCommit } from './groupCommit.js';
import type { OrderListReaders } from './orderStream.js';

/**
 * How many commits changed orders, as this statement's snapshot sees them (migration 2), and whether the
 * caller's key ($1) is active in it (migration 8).
 */
const ORDER_CHANGES = `SELECT ((SELECT changes FROM order_changes_base)
  + (SELECT count(*) FROM order_changes))::text AS changes, key_is_active($1) AS active`;

/**
 * The count of order changes, the key's check, the count of orders shown (up to $2) and, when there are
 * fewer than $2, the orders themselves: one statement, so one snapshot, which the count then names exactly.
 */
const READ_LIST = `
  SELECT current.changes, current.active, counted.shown, o.*
  FROM (${ORDER_CHANGES}) current
  CROSS JOIN (
    SELECT count(*)::integer AS shown FROM (SELECT 1 FROM orders WHERE status <> 'cancelled' LIMIT $2) c
  ) counted
  LEFT JOIN LATERAL (
    SELECT ${mapped.ORDER_COLUMNS} FROM orders WHERE status <> 'cancelled' AND counted.shown < $2
  ) o ON true
  ORDER BY o.id`;

/** A move as written: a NULL key is the operator's, checked by nobody. */
interface Move {
  orderId: number;
  from: OrderStatus;
  to: OrderStatus;
  key: Buffer | null;
  traceparent: string | null;
}

/** What a move found: the order's status (null: no such order), or that the key is not active. */
type Found = OrderStatus | Unauthorized | null;

/** move_orders_for_keys' answer for a move it left to be made alone: another transaction holds the order. */
const HELD = 'busy';

/** A row of READ_LIST: an order, or the nulls of an empty or long list. */
type ListRow = { changes: string; active: boolean; shown: number } & (OrderRow | { id: null });

/** The columns of a new order, as json_populate_recordset reads them: typed by the table itself. */
const NEW_ORDERS = `INSERT INTO orders (${mapped.NEW_ORDER_COLUMNS.join(', ')}, created_at, updated_at)
  SELECT ${mapped.NEW_ORDER_COLUMNS.join(', ')}, $2, $2
  FROM json_populate_recordset(NULL::orders, $1::json) WITH ORDINALITY
  ORDER BY ordinality`;

export interface OrdersOptions {
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove: number;
  /** How long a move may take in PostgreSQL before it gives up, writing nothing (null: no limit). */
  writeBudgetMs: number | null;
}

export class Orders implements OrderRepository {
  readonly #pool: Pool;
  readonly #readers: OrderListReaders;
  readonly #now: () => string;
  readonly #databaseId: string;
  readonly #options: OrdersOptions;
  readonly #moves: GroupCommit<Move, Found>;
  #list: { changes: string; list: OrderList } | undefined;

  constructor(pool: Pool, readers: OrderListReaders, now: () => string, databaseId: string, options: OrdersOptions) {
    this.#pool = pool;
    this.#readers = readers;
    this.#now = now;
    this.#databaseId = databaseId;
    this.#options = options;
    this.#moves = new GroupCommit(
      (move) => this.#moveOne(move),
      (moves) => this.#moveMany(moves),
    );
  }

  /**
   * The version is the database's identity and the count of commits that changed orders (migration 2):
   * the same in every server on the database, and it never goes back. The list is read again only after
   * orders changed; the check costs one round trip per list, which is what makes a change on another
   * server seen by the next request. The caller's key is checked by the same statement.
   */
  async list(key: Buffer): Promise<OrderList | Unauthorized> {
    const last = this.#list;
    if (last) {
      const { rows } = await this.#pool.query<{ changes: string; active: boolean }>(ORDER_CHANGES, [key]);
      if (!rows[0]?.active) return UNAUTHORIZED;
      if (rows[0].changes === last.changes) return last.list;
    }
    const { streamOrdersAbove } = this.#options;
    const { rows } = await this.#pool.query<ListRow>(READ_LIST, [key, streamOrdersAbove + 1]);
    const [first] = rows;
    if (!first) throw new Error('the order list query returned no row');
    if (!first.active) return UNAUTHORIZED;
    const version = `${this.#databaseId}-${first.changes}`;
    let list: OrderList;
    if (first.shown > streamOrdersAbove) {
      const readers = this.#readers;
      list = { version, rows: () => readers.stream() };
    } else {
      const orders = first.id === null ? [] : (rows as OrderRow[]).map(mapped.toOrder);
      list = { version, orders: Object.freeze(orders) };
    }
    this.#list = { changes: first.changes, list };
    return list;
  }

  /** One statement: one snapshot. */
  async page({ filter, afterId, limit }: OrderPageQuery): Promise<OrderPage> {
    const values: unknown[] = [];
    const { rows } = await this.#pool.query<StatusRow & PageRowBase>(
      orderPageSql(filter, afterId, limit, pageDialect(values)),
      values,
    );
    const { rows: orders, nextAfterId } = cutPage(rows, limit, () => rows[0]?.examined_to ?? null);
    return { orders: orders.map(mapped.toOrderWithStatus), nextAfterId };
  }

  /** With the other moves of its turn (groupCommit.ts); the statement checks each caller's key. */
  async move<T>(
    orderId: number,
    from: OrderStatus,
    to: OrderStatus,
    outcome: (found: OrderStatus | Unauthorized | undefined) => T,
    key?: Buffer,
    traceparent?: string,
  ) {
    return outcome((await this.#moves.run({ orderId, from, to, key: key ?? null, traceparent: traceparent ?? null })) ?? undefined);
  }

  /** move_order_for_key() locks the row before it reads its status, then checks the key (migrations 8, 17). */
  async #moveOne({ orderId, from, to, key, traceparent }: Move): Promise<Found> {
    const { rows } = await this.#pool.query<{ found: Found }>(
      `SELECT move_order_for_key($1, $2, $3, $4, $5, $6, $7) AS found`,
      [key, orderId, from, to, this.#now(), traceparent, this.#options.writeBudgetMs],
    );
    return rows[0]?.found ?? null;
  }

  /** One statement for all, in their order; a move whose order another transaction holds is made alone. */
  async #moveMany(moves: readonly Move[]): Promise<(Found | Promise<Found>)[]> {
    const column = <Field extends keyof Move>(field: Field) => moves.map((move) => move[field]);
    const { rows } = await this.#pool.query<{ found: (Found | typeof HELD)[] }>(
      `SELECT move_orders_for_keys($1, $2, $3, $4, $5, $6, $7) AS found`,
      [column('key'), column('orderId'), column('from'), column('to'), column('traceparent'), this.#now(), this.#options.writeBudgetMs],
    );
    const found = rows[0]?.found ?? [];
    return moves.map((move, i) => (found[i] === HELD ? this.#moveOne(move) : (found[i] ?? null)));
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
    const { rows } = await this.#pool.query<StoredOrderRow>(`${NEW_ORDERS} RETURNING ${mapped.STORED_ORDER_COLUMNS}`, [
      JSON.stringify([mapped.newOrderRow(order)]),
      this.#now(),
    ]);
    return mapped.toStoredOrder(rows[0] as StoredOrderRow);
  }

  /** All or nothing: one statement. */
  async addAll(orders: readonly NewOrder[]): Promise<number> {
    if (orders.length === 0) return 0;
    const { rowCount } = await this.#pool.query(NEW_ORDERS, [JSON.stringify(orders.map(mapped.newOrderRow)), this.#now()]);
    return rowCount ?? 0;
  }

  async find(orderId: number): Promise<StoredOrder | undefined> {
    const { rows } = await this.#pool.query<StoredOrderRow>(
      `SELECT ${mapped.STORED_ORDER_COLUMNS} FROM orders WHERE id = $1`,
      [orderId],
    );
    return rows[0] && mapped.toStoredOrder(rows[0]);
  }

  async listAll(filter?: OrderFilter): Promise<StoredOrder[]> {
    const values: unknown[] = [];
    const where = filter ? `WHERE ${listingCondition(filter, parameterInto(values))}` : '';
    const { rows } = await this.#pool.query<StoredOrderRow>(
      `SELECT ${mapped.STORED_ORDER_COLUMNS} FROM orders ${where} ORDER BY id`,
      values,
    );
    return rows.map(mapped.toStoredOrder);
  }
}

/** PostgreSQL's parameters are numbered. */
export function parameterInto(values: unknown[]): Parameter {
  return (value) => `$${values.push(value)}`;
}

/** How PostgreSQL's page query is written, its parameters' values going to `values`. */
export function pageDialect(values: unknown[]): Dialect {
  return { parameter: parameterInto(values), arms: 'limited' };
}
