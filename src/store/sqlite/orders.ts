// Orders: the API's list, pages and cancellation, and the operator's additions, shipping and listings.
import type { Statement } from 'better-sqlite3';
import type { OrderRepository } from '../backend.js';
import {
  cutPage,
  type Dialect,
  everyExaminedMatches,
  examinedToSql,
  listingCondition,
  pageOrdersSql,
  type Parameter,
} from '../orderPages.js';
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
import type { Connection } from './connection.js';
import { OrderListReaders } from './orderStream.js';


export interface OrderListOptions {
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove: number;
  /** How many streamed lists may be read at once; see orderStream.ts. */
  maxStreamedLists: number;
}

export class Orders implements OrderRepository {
  readonly #connection: Connection;
  readonly #isActiveKey: (digest: Buffer) => boolean;
  readonly #statements;
  readonly #listReaders: OrderListReaders;
  /** The version, and the list if it moved, from one snapshot: the version names exactly these orders. */
  readonly #readList: (last: OrderList | undefined) => OrderList;
  #list: { stamp: string; list: OrderList } | undefined;
  /** A page's two reads, in one snapshot (see page()). */
  readonly #readPage: (query: OrderPageQuery) => OrderPage;
  /** The prepared page and listing statements, one per shape of filter (at most a few hundred). */
  readonly #filtered = new Map<string, Statement<unknown[], unknown>>();

  constructor(
    connection: Connection,
    isActiveKey: (digest: Buffer) => boolean,
    { streamOrdersAbove, maxStreamedLists }: OrderListOptions,
  ) {
    const { db } = connection;
    this.#connection = connection;
    this.#isActiveKey = isActiveKey;
    this.#listReaders = new OrderListReaders(db.name, maxStreamedLists);
    this.#statements = {
      list: db.prepare<[], OrderRow>(`SELECT ${mapped.ORDER_COLUMNS} FROM orders WHERE status <> 'cancelled' ORDER BY id`),
      listAll: db.prepare<[], StoredOrderRow>(`SELECT ${mapped.STORED_ORDER_COLUMNS} FROM orders ORDER BY id`),
      byId: db.prepare<[number], StoredOrderRow>(`SELECT ${mapped.STORED_ORDER_COLUMNS} FROM orders WHERE id = ?`),
      status: db.prepare<[number], { status: OrderStatus }>(`SELECT status FROM orders WHERE id = ?`),
      move: db.prepare<[OrderStatus, string, string | null, number, OrderStatus]>(
        `UPDATE orders SET status = ?, updated_at = ?, traceparent = ? WHERE id = ? AND status = ?`,
      ),
      insert: db.prepare(
        `INSERT INTO orders (${mapped.NEW_ORDER_COLUMNS.join(', ')}, created_at, updated_at)
         VALUES (${mapped.NEW_ORDER_COLUMNS.map((column) => `@${column}`).join(', ')}, @now, @now)`,
      ),
      countUpTo: db
        .prepare<[number]>(`SELECT count(*) FROM (SELECT 1 FROM orders WHERE status <> 'cancelled' LIMIT ?)`)
        .pluck(),
      version: db
        .prepare<[], string>(`SELECT database_id || '-' || changes FROM order_list_version`)
        .pluck(),
      countByStatus: db.prepare<[], { status: OrderStatus; count: number }>(
        `SELECT status, count(*) AS count FROM orders GROUP BY status`,
      ),
    };
    const { version, countUpTo, list } = this.#statements;
    this.#readList = db.transaction((last: OrderList | undefined): OrderList => {
      const current = version.get() as string;
      if (last?.version === current) return last;
      if ((countUpTo.get(streamOrdersAbove + 1) as number) <= streamOrdersAbove) {
        return { version: current, orders: Object.freeze(list.all().map(mapped.toOrder)) };
      }
      const readers = this.#listReaders;
      return { version: current, rows: () => readers.stream() };
    });
    this.#readPage = db.transaction((query: OrderPageQuery): OrderPage =>
      this.#pageOf(query, () => {
        const values: unknown[] = [];
        const reach = examinedToSql(query.filter, query.afterId, pageDialect(values));
        return this.#prepared<{ examined_to: number | null }>(reach).get(...values)?.examined_to ?? null;
      }),
    );
  }

  /**
   * The version is the database's own count of changes to orders (migration 4), the same for every process
   * on the file. It is read again only when the connection's change stamp moved, and the list only when the
   * version did: a message written leaves the list as it was. A list longer than `streamOrdersAbove` is
   * never held in memory: it is streamed from a snapshot instead.
   */
  list(key: Buffer): OrderList | Unauthorized {
    if (!this.#isActiveKey(key)) return UNAUTHORIZED;
    const stamp = this.#connection.changeStamp();
    if (this.#list?.stamp !== stamp) this.#list = { stamp, list: this.#readList(this.#list?.list) };
    return this.#list.list;
  }

  /**
   * The orders, then, for a page cut short, how far it examined: two statements in one read transaction,
   * and so one snapshot. (One statement would have SQLite materialize the page and sort it again.) A page
   * whose every examined order matches is never cut short: one statement, which needs no transaction.
   */
  page(query: OrderPageQuery): OrderPage {
    return everyExaminedMatches(query.filter) ? this.#pageOf(query, () => null) : this.#readPage(query);
  }

  /** The page's orders, and `examinedTo()` for a page that its orders do not fill. */
  #pageOf({ filter, afterId, limit }: OrderPageQuery, examinedTo: () => number | null): OrderPage {
    const values: unknown[] = [];
    const sql = pageOrdersSql(filter, afterId, limit, pageDialect(values));
    const orders = this.#prepared(sql).raw(true).all(...values).map(statusRow);
    const { rows, nextAfterId } = cutPage(orders, limit, examinedTo);
    return { orders: rows.map(mapped.toOrderWithStatus), nextAfterId };
  }

  /** Every move in one turn of the event loop shares one transaction (groupCommit.ts). */
  move<T>(
    orderId: number,
    from: OrderStatus,
    to: OrderStatus,
    outcome: (found: OrderStatus | Unauthorized | undefined) => T,
    key?: Buffer,
    traceparent?: string,
  ): Promise<T> {
    return this.#connection.groupCommit.run(() => {
      if (key && !this.#isActiveKey(key)) return outcome(UNAUTHORIZED);
      const { changes } = this.#statements.move.run(to, this.#connection.now(), traceparent ?? null, orderId, from);
      if (changes === 1) return outcome(from);
      return outcome(this.#statements.status.get(orderId)?.status);
    });
  }

  countByStatus(): Record<OrderStatus, number> {
    const counts: Record<OrderStatus, number> = { pending: 0, shipped: 0, cancelled: 0 };
    for (const { status, count } of this.#statements.countByStatus.all()) counts[status] = count;
    return counts;
  }

  add(order: NewOrder): StoredOrder {
    const id = this.#connection.immediate(() => this.#insert(order));
    return this.find(Number(id)) as StoredOrder;
  }

  addAll(orders: readonly NewOrder[]): number {
    return this.#connection.immediate(() => {
      for (const order of orders) this.#insert(order);
      return orders.length;
    });
  }

  find(orderId: number): StoredOrder | undefined {
    const row = this.#statements.byId.get(orderId);
    return row && mapped.toStoredOrder(row);
  }

  listAll(filter?: OrderFilter): StoredOrder[] {
    if (!filter) return this.#statements.listAll.all().map(mapped.toStoredOrder);
    const values: unknown[] = [];
    const condition = listingCondition(filter, parameterInto(values));
    const rows = this.#prepared<StoredOrderRow>(`SELECT ${mapped.STORED_ORDER_COLUMNS} FROM orders WHERE ${condition} ORDER BY id`).all(...values);
    return rows.map(mapped.toStoredOrder);
  }

  close(): void {
    this.#listReaders.close();
  }

  #insert(order: NewOrder): number | bigint {
    const row = mapped.newOrderRow(order);
    return this.#statements.insert.run({ ...row, complete: Number(row.complete), now: this.#connection.now() })
      .lastInsertRowid;
  }

  #prepared<Row>(sql: string): Statement<unknown[], Row> {
    let statement = this.#filtered.get(sql);
    if (!statement) {
      statement = this.#connection.db.prepare<unknown[], Row>(sql);
      this.#filtered.set(sql, statement);
    }
    return statement as Statement<unknown[], Row>;
  }
}

/**
 * A page's row, read as an array in the order of STATUS_COLUMNS: better-sqlite3 makes an object per row
 * at about twice the cost of this literal, which a page of 1,000 orders pays 1,000 times.
 */
function statusRow(values: unknown): StatusRow {
  const [id, pet_id, quantity, ship_date, complete, status] = values as [
    StatusRow['id'],
    StatusRow['pet_id'],
    StatusRow['quantity'],
    StatusRow['ship_date'],
    StatusRow['complete'],
    StatusRow['status'],
  ];
  return { id, pet_id, quantity, ship_date, complete, status };
}

/** SQLite's parameters are positional; a boolean is stored as 0 or 1. */
export function parameterInto(values: unknown[]): Parameter {
  return (value) => {
    values.push(typeof value === 'boolean' ? Number(value) : value);
    return '?';
  };
}

/** How SQLite's page query is written, its parameters' values going to `values`. */
export function pageDialect(values: unknown[]): Dialect {
  return { parameter: parameterInto(values), arms: 'plain' };
}
