// The seam's part for orders: what the API reads and cancels, and what only the operator does (add, import,
// ship). No SQL, no HTTP; compose.ts builds it from a backend's repositories.
import type { components } from '../../generated/openapi.js';
import type { components as componentsV2 } from '../../generated/openapi.v2.js';
import type { Readable } from 'node:stream';
import type { Awaitable } from '../awaitable.js';
import type { OrderStatus, Principal, Unauthorized } from './vocabulary.js';

export type Order = components['schemas']['Order'];

/** An order as API v2 shows it: with its status. */
export type OrderWithStatus = componentsV2['schemas']['Order'];

/** An order as the operator sees it: the API fields plus the status that lives only in the store. */
export type StoredOrder = Order & { status: OrderStatus; createdAt: string; updatedAt: string };

export type CancelOutcome = 'cancelled' | 'shipped' | 'missing';
export type ShipOutcome = 'shipped' | 'not_pending' | 'missing';

export interface NewOrder {
  petId?: number;
  quantity?: number;
  shipDate?: string;
  complete?: boolean;
  status?: Exclude<OrderStatus, 'cancelled'>;
}

/**
 * The order list at one moment. `version` changes whenever the list may have changed, and never repeats,
 * across restarts and between the processes sharing one database included: it is what the ETag of a long
 * list is made of. A short list is held (`orders`, the same frozen array while `version` stays, so callers
 * may cache what they derive from it); a long one is only ever streamed (`rows`).
 */
export type OrderList =
  | { readonly version: string; readonly orders: readonly Order[] }
  | {
      readonly version: string;
      /**
       * Each order's JSON text, in id order, from one snapshot, in batches (an object-mode stream of string
       * arrays) read as fast as they are taken; destroying it lets the snapshot go. `undefined` while as
       * many lists are streamed as the store allows. contract/streamedArray.ts frames the array.
       */
      readonly rows: () => Readable | undefined;
    };

/**
 * Which orders a page (or the operator's listing) holds; every filter given applies. `shipDateFrom` is
 * inclusive and `shipDateBefore` exclusive, ISO 8601 instants in UTC as the store keeps ship dates (as
 * `Date#toISOString` writes them); an order without a ship date matches no bound.
 */
export interface OrderFilter {
  /** At least one. */
  statuses: readonly OrderStatus[];
  petId?: number;
  complete?: boolean;
  shipDateFrom?: string;
  shipDateBefore?: string;
}

/** Up to `limit` orders after the order `afterId` (0: from the first) that match `filter`. */
export interface OrderPageQuery {
  filter: OrderFilter;
  afterId: number;
  limit: number;
}

/**
 * A page read from one snapshot, in id order, examining a bounded number of orders (store/orderPages.ts): it
 * may hold fewer than `limit`, even none, and not be the last.
 */
export interface OrderPage {
  readonly orders: readonly OrderWithStatus[];
  /** The next page's `afterId`: this one's last order, or the last it examined; undefined on the last page. */
  readonly nextAfterId: number | undefined;
}

/** Orders as the API sees them; a call for a caller checks the caller's key (UNAUTHORIZED). */
export interface OrderStore {
  listOrders(caller: Principal): Awaitable<OrderList | Unauthorized>;
  /** Answered from an index, however deep the page, examining a bounded number of orders. */
  listOrderPage(query: OrderPageQuery): Awaitable<OrderPage>;
  /**
   * Settles once the change is committed. Exactly one of any number of concurrent cancels wins. The
   * request's `traceparent`, if given, is kept with the order, and so with the event the cancel writes.
   */
  cancelOrder(orderId: number, caller: Principal, traceparent?: string): Promise<CancelOutcome | Unauthorized>;
}

/** What the operator does with orders, beyond the API. */
export interface OrderAdmin {
  addOrder(order: NewOrder): Promise<StoredOrder>;
  /** All or nothing: one transaction. */
  importOrders(orders: readonly NewOrder[]): Promise<number>;
  shipOrder(orderId: number): Promise<ShipOutcome>;
  findOrder(orderId: number): Promise<StoredOrder | undefined>;
  /** Every order (or those matching `filter`), by id, cancelled ones included unless filtered out. */
  listAllOrders(filter?: OrderFilter): Promise<StoredOrder[]>;
}
