// Rows as every backend reads and writes them (both schemas name the columns alike), and the one mapping
// of each to what the seam gives: a column the store has no value for is left out of the answer.
import type { DeprecatedCalls, KeyListing, NewOrder, Order, OrderStatus, OrderWithStatus, StoredOrder } from './store.js';
import { ALL_SCOPES, type Scope, type Scopes } from './vocabulary.js';

export const ORDER_COLUMNS = 'id, pet_id, quantity, ship_date, complete';
/** In this order, as SQLite's pages read them into arrays (sqlite/orders.ts, statusRow). */
export const STATUS_COLUMNS = `${ORDER_COLUMNS}, status`;
export const STORED_ORDER_COLUMNS = `${STATUS_COLUMNS}, created_at, updated_at`;

export interface OrderRow {
  id: number;
  pet_id: number | null;
  quantity: number | null;
  ship_date: string | null;
  /** A boolean, or 0 and 1 where the database has no booleans. */
  complete: boolean | number | null;
}

export interface StatusRow extends OrderRow {
  status: OrderStatus;
}

export interface StoredOrderRow extends StatusRow {
  created_at: string;
  updated_at: string;
}

export function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  if (row.complete !== null) order.complete = row.complete === true || row.complete === 1;
  return order;
}

export function toOrderWithStatus(row: StatusRow): OrderWithStatus {
  // Added in place, not spread into a copy: a page maps up to 1,000 rows per request.
  const order = toOrder(row) as OrderWithStatus;
  order.status = row.status;
  return order;
}

export function toStoredOrder(row: StoredOrderRow): StoredOrder {
  return { ...toOrder(row), status: row.status, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** The columns a new order is written with, besides its times. */
export function newOrderRow({ petId, quantity, shipDate, complete, status }: NewOrder) {
  return {
    pet_id: petId ?? null,
    quantity: quantity ?? null,
    ship_date: shipDate ?? null,
    complete: complete ?? false,
    status: status ?? 'pending',
  };
}

export type NewOrderRow = ReturnType<typeof newOrderRow>;

/** The column names of NewOrderRow, read from the mapping itself: a column it gains is written at once. */
export const NEW_ORDER_COLUMNS = Object.keys(newOrderRow({})) as (keyof NewOrderRow)[];

/** An account as the seam names its fields. */
export const ACCOUNT_COLUMNS = `id, name, created_at AS "createdAt"`;

/** The keys of the table (or common table expression) `keys` as listed: with their account's name. */
export function keyListingOf(keys: string): string {
  return `SELECT k.id, a.name AS account, k.display_prefix, k.scopes, k.created_at, k.expires_at, k.revoked_at,
      k.last_used_at
    FROM ${keys} k JOIN accounts a ON a.id = k.account_id`;
}

export const KEY_LISTING = keyListingOf('api_keys');

/** A key's scopes as its `scopes` column holds them (migration 8 on SQLite, 13 on PostgreSQL). */
export function scopesOf(column: string | null): Scopes {
  if (column === null) return ALL_SCOPES;
  return column === '' ? [] : (column.split(' ') as Scope[]);
}

/** The `scopes` column of a key with `scopes`. */
export function scopesColumn(scopes: Scopes): string | null {
  return scopes === ALL_SCOPES ? null : scopes.join(' ');
}

export interface KeyRow {
  id: number;
  account: string;
  display_prefix: string;
  scopes: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export function toKeyListing(row: KeyRow): KeyListing {
  const listing: KeyListing = {
    id: row.id,
    account: row.account,
    displayPrefix: row.display_prefix,
    scopes: scopesOf(row.scopes),
    createdAt: row.created_at,
  };
  if (row.expires_at !== null) listing.expiresAt = row.expires_at;
  if (row.revoked_at !== null) listing.revokedAt = row.revoked_at;
  if (row.last_used_at !== null) listing.lastUsedAt = row.last_used_at;
  return listing;
}

/** The columns the calls of one deprecated operation by one account are counted in. */
export function deprecatedCallRow({ operationId, accountId, firstCallAt, lastCallAt, count }: DeprecatedCalls) {
  return {
    operation_id: operationId,
    account_id: accountId,
    first_call_at: firstCallAt,
    last_call_at: lastCallAt,
    call_count: count,
  };
}

/** The column names of deprecatedCallRow, read from the mapping itself. */
export const DEPRECATED_CALL_COLUMNS = Object.keys(deprecatedCallRow({} as DeprecatedCalls));

/** Named as DeprecatedCallListing names them: by operation, the latest first. */
export const DEPRECATED_CALL_LISTING = `SELECT d.operation_id AS "operationId", a.name AS account,
    d.first_call_at AS "firstCallAt", d.last_call_at AS "lastCallAt", d.call_count AS count
  FROM deprecated_calls d JOIN accounts a ON a.id = d.account_id
  ORDER BY d.operation_id, d.last_call_at DESC, a.name`;
