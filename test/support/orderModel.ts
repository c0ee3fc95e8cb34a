// The stateful test's model of the store's orders (test/contract/stateful.test.ts), and how a generated
// command names an order: by position among those the model knows, or an id nobody issued.
import fc from 'fast-check';
import type { OrderStatus, OrderV2 } from './orderPages.js';

/** An order as the model expects API v2 to show it, without its id. */
export interface ModelOrder {
  petId: number;
  quantity: number;
  complete: boolean;
  shipDate?: string;
  status: OrderStatus;
}

export interface OrderModel {
  orders: Map<number, ModelOrder>;
}

/** An order the model knows (by position, so shrinking keeps it meaningful) or an id nobody issued. */
export type OrderPick = { known: number } | { unknown: number };

export function pickId(model: OrderModel, pick: OrderPick): number {
  const ids = [...model.orders.keys()];
  if ('known' in pick && ids.length > 0) return ids[pick.known % ids.length]!;
  return 1_000_000 + ('unknown' in pick ? pick.unknown : pick.known);
}

export const orderPick: fc.Arbitrary<OrderPick> = fc.oneof(
  { weight: 5, arbitrary: fc.nat().map((known) => ({ known })) },
  { weight: 1, arbitrary: fc.nat(1000).map((unknown) => ({ unknown })) },
);

/** The order as v2 should show it. */
export const asShown = (id: number, { petId, quantity, complete, shipDate, status }: ModelOrder): OrderV2 => ({
  id,
  petId,
  quantity,
  ...(shipDate !== undefined && { shipDate }),
  complete,
  status,
});
