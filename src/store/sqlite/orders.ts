// Orders: the API's list and cancellation, and the operator's additions, shipping and listings.
import type { Statement } from 'better-sqlite3';
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
import type { Connection } from './connection.js';
import { OrderListReaders } from './orderStream.js';

interface OrderRow {
  id: number;
  pet_id: number | null;
  quantity: number | null;
  ship_date: string | null;
  complete: number | null;
}

interface StatusRow extends OrderRow {
  status: OrderStatus;
}

/** A row of orderPageSql: an order, or the nulls of an empty page. */
type PageRow = StatusRow & PageRowBase;

interface StoredOrderRow extends StatusRow {
  created_at: string;
  updated_at: string;
}

export interface OrderListOptions {
  /** Lists longer than this are streamed rather than held in memory. */
  streamOrdersAbove: number;
  /** How many streamed lists may be read at once; see orderStream.ts. */
  maxStreamedLists: number;
}

export class Orders {
  readonly #connection: Connection;
  readonly #statements;
  readonly #listReaders: OrderListReaders;
  /** The version, and the list if it moved, from one snapshot: the version names exactly these orders. */
  readonly #readList: (last: OrderList | undefined) => OrderList;
  /** A page and the list's version, from one snapshot. */
  readonly #readPage: (page: Statement<unknown[], PageRow>, values: unknown[], limit: number) => OrderPage;
  #list: { stamp: string; list: OrderList } | undefined;
  /** The prepared page and listing statements, one per shape of filter (at most a few hundred). */
  readonly #filtered = new Map<string, Statement<unknown[], PageRow & StoredOrderRow>>();

  constructor(connection: Connection, { streamOrdersAbove, maxStreamedLists }: OrderListOptions) {
    const { db } = connection;
    this.#connection = connection;
    this.#listReaders = new OrderListReaders(db.name, maxStreamedLists);
    this.#statements = {
      list: db.prepare<[], OrderRow>(
        `SELECT id, pet_id, quantity, ship_date, complete FROM orders WHERE status <> 'cancelled' ORDER BY id`,
      ),
      listAll: db.prepare<[], StoredOrderRow>(`SELECT * FROM orders ORDER BY id`),
      byId: db.prepare<[number], StoredOrderRow>(`SELECT * FROM orders WHERE id = ?`),
      status: db.prepare<[number], { status: OrderStatus }>(`SELECT status FROM orders WHERE id = ?`),
      move: db.prepare<[OrderStatus, string, number, OrderStatus]>(
        `UPDATE orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?`,
      ),
      insert: db.prepare<
        [number | null, number | null, string | null, number, OrderStatus, string, string]
      >(
        `INSERT INTO orders (pet_id, quantity, ship_date, complete, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
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
        return { version: current, orders: Object.freeze(list.all().map(toOrder)) };
      }
      const readers = this.#listReaders;
      return { version: current, rows: () => readers.stream() };
    });
    this.#readPage = db.transaction((page: Statement<unknown[], PageRow>, values: unknown[], limit: number) => {
      const { rows, nextAfterId } = cutPage(page.all(...values), limit);
      return { version: version.get() as string, orders: rows.map(toOrderWithStatus), nextAfterId };
    });
  }

  /**
   * The version is the database's own count of changes to orders (migration 4), the same for every process
   * on the file. It is read again only when the connection's change stamp moved, and the list only when the
   * version did: a message written leaves the list as it was. A list longer than `streamOrdersAbove` is
   * never held in memory: it is streamed from a snapshot instead.
   */
  list(): OrderList {
    const stamp = this.#connection.changeStamp();
    if (this.#list?.stamp !== stamp) this.#list = { stamp, list: this.#readList(this.#list?.list) };
    return this.#list.list;
  }

  /** The page and the list's version, read in one transaction: from one snapshot. */
  page({ filter, afterId, limit }: OrderPageQuery): OrderPage {
    const values: unknown[] = [];
    const sql = orderPageSql(filter, afterId, limit, pageDialect(values));
    return this.#readPage(this.#prepared(sql), values, limit);
  }

  cancel(orderId: number): Promise<CancelOutcome> {
    // Ids beyond 2^53 are valid int64 but never issued here; looking them up would need exact BigInt ids.
    if (!Number.isSafeInteger(orderId)) return Promise.resolve('missing');
    return this.#connection.groupCommit.run(() => {
      if (this.#move(orderId, 'pending', 'cancelled')) return 'cancelled';
      const status = this.#statements.status.get(orderId)?.status;
      return status === 'shipped' ? 'shipped' : 'missing';
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

  ship(orderId: number): ShipOutcome {
    return this.#connection.immediate(() => {
      if (this.#move(orderId, 'pending', 'shipped')) return 'shipped';
      return this.#statements.status.get(orderId) ? 'not_pending' : 'missing';
    });
  }

  find(orderId: number): StoredOrder | undefined {
    const row = this.#statements.byId.get(orderId);
    return row && toStoredOrder(row);
  }

  listAll(filter?: OrderFilter): StoredOrder[] {
    if (!filter) return this.#statements.listAll.all().map(toStoredOrder);
    const values: unknown[] = [];
    const condition = listingCondition(filter, parameterInto(values));
    const rows = this.#prepared(`SELECT * FROM orders WHERE ${condition} ORDER BY id`).all(...values);
    return (rows as StoredOrderRow[]).map(toStoredOrder);
  }

  close(): void {
    this.#listReaders.close();
  }

  #insert({ petId, quantity, shipDate, complete, status }: NewOrder): number | bigint {
    const now = this.#connection.now();
    return this.#statements.insert.run(
      petId ?? null,
      quantity ?? null,
      shipDate ?? null,
      complete ? 1 : 0,
      status ?? 'pending',
      now,
      now,
    ).lastInsertRowid;
  }

  #prepared(sql: string) {
    let statement = this.#filtered.get(sql);
    if (!statement) {
      statement = this.#connection.db.prepare<unknown[], PageRow & StoredOrderRow>(sql);
      this.#filtered.set(sql, statement);
    }
    return statement;
  }

  #move(orderId: number, from: OrderStatus, to: OrderStatus): boolean {
    return this.#statements.move.run(to, this.#connection.now(), orderId, from).changes === 1;
  }
}

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  if (row.complete !== null) order.complete = row.complete === 1;
  return order;
}

/** SQLite's parameters are positional; a boolean is stored as 0 or 1. */
function parameterInto(values: unknown[]): Parameter {
  return (value) => {
    values.push(typeof value === 'boolean' ? Number(value) : value);
    return '?';
  };
}

/** How SQLite's page query is written, its parameters' values going to `values`. */
export function pageDialect(values: unknown[]): Dialect {
  return { parameter: parameterInto(values), arms: 'plain' };
}

function toOrderWithStatus(row: StatusRow): OrderWithStatus {
  return { ...toOrder(row), status: row.status };
}

function toStoredOrder(row: StoredOrderRow): StoredOrder {
  return { ...toOrder(row), status: row.status, createdAt: row.created_at, updatedAt: row.updated_at };
}
