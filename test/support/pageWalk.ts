// A command of the stateful test (test/contract/stateful.test.ts): a walk through every page of API v2's
// listOrders, with filters and a limit that may change from page to page, following nextCursor to the end,
// while orders are cancelled (through /v2), shipped, added and imported (through the store, as the
// operator's CLI does) during the page requests. Checked against the model:
// - each page keeps its query's promises (test/support/orderPages.ts): ids ascending and after the last
//   page's, at most `limit`, every order matching the filters with a status it had during the request;
// - a page read while nothing was written is exactly the model's next page (the model knows no bound on
//   the orders a page examines: a walk's store holds far fewer than EXAMINED_PER_PAGE, so none is ever
//   reached; the store suite and test/operations/v2/listOrders.test.ts test pages that reach it);
// - the walk returns no order twice, every order that existed and matched the filters for the whole walk,
//   and no order that matched at no moment of it.
import fc from 'fast-check';
import { expect } from 'vitest';
import { EXAMINED_PER_PAGE } from '../../src/store/orderPages.js';
import type { AdminStore, NewOrder } from '../../src/store/store.js';
import type { apiClientV2 } from './http.js';
import { asShown, type ModelOrder, type OrderModel, type OrderPick, orderPick, pickId } from './orderModel.js';
import { filterOfQuery, matchesFilter, type OrderStatus, type OrderV2, pageProblems } from './orderPages.js';

export interface WalkReal {
  clientV2: ReturnType<typeof apiClientV2>;
  store: AdminStore;
}

type Write =
  | { kind: 'cancel' | 'ship'; pick: OrderPick }
  | { kind: 'add'; order: NewOrder }
  | { kind: 'import'; orders: NewOrder[] };

interface WalkQuery {
  status?: OrderStatus[];
  petId?: number;
  complete?: boolean;
  shipDateFrom?: string;
  shipDateBefore?: string;
}

export interface WalkSpec {
  query: WalkQuery;
  /** The limit of each page, the last one repeated. */
  limits: number[];
  /** What is written during each page's request, from the first page on. */
  writes: Write[][];
}

/** Ship dates in the first days of December 2026, written in any zone. */
const shipDate = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 23 }), fc.constantFrom('Z', '+02:00', '-05:30'))
  .map(([day, hour, zone]) => `2026-12-0${day}T${String(hour).padStart(2, '0')}:00:00${zone}`);

export const newOrder: fc.Arbitrary<NewOrder> = fc.record(
  {
    petId: fc.integer({ min: 1, max: 3 }),
    quantity: fc.integer({ min: 1, max: 5 }),
    complete: fc.boolean(),
    shipDate: shipDate.map((text) => new Date(text).toISOString()),
    status: fc.constantFrom('pending' as const, 'shipped' as const),
  },
  { requiredKeys: ['petId', 'quantity', 'complete'] },
);

const write: fc.Arbitrary<Write> = fc.oneof(
  orderPick.map((pick) => ({ kind: 'cancel' as const, pick })),
  orderPick.map((pick) => ({ kind: 'ship' as const, pick })),
  newOrder.map((order) => ({ kind: 'add' as const, order })),
  fc.array(newOrder, { minLength: 1, maxLength: 4 }).map((orders) => ({ kind: 'import' as const, orders })),
);

/** A filter given one time in four. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

export const pageWalks: fc.Arbitrary<WalkSpec> = fc.record({
  query: fc
    .record({
      status: sometimes(
        fc.uniqueArray(fc.constantFrom<OrderStatus>('pending', 'shipped', 'cancelled'), { minLength: 1, maxLength: 3 }),
      ),
      petId: sometimes(fc.integer({ min: 1, max: 3 })),
      complete: sometimes(fc.boolean()),
      shipDateFrom: sometimes(shipDate),
      shipDateBefore: sometimes(shipDate),
    })
    .map((query) => Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined))),
  limits: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
  writes: fc.array(fc.array(write, { maxLength: 3 }), { maxLength: 4 }),
});

type Snapshot = Map<number, ModelOrder>;
const snapshot = (model: OrderModel): Snapshot =>
  new Map([...model.orders].map(([id, order]) => [id, { ...order }]));

/** A page's query as it goes on the wire, an array as the parameter repeated. */
function searchParams(query: WalkQuery & { limit?: number; cursor?: string }): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  return params;
}

/** Runs one page's writes at once, each on a different order, and brings the model up to date. */
async function runWrites(writes: Write[], model: OrderModel, real: WalkReal): Promise<void> {
  const targeted = new Set<number>();
  const runs = writes.map(async (one) => {
    if (one.kind === 'add') {
      const added = await real.store.orders.addOrder(one.order);
      expect(added.status).toBe(one.order.status ?? 'pending');
      return;
    }
    if (one.kind === 'import') {
      expect(await real.store.orders.importOrders(one.orders)).toBe(one.orders.length);
      return;
    }
    const orderId = pickId(model, one.pick);
    if (targeted.has(orderId)) return;
    targeted.add(orderId);
    const order = model.orders.get(orderId);
    if (one.kind === 'ship') {
      const outcome = await real.store.orders.shipOrder(orderId);
      expect(outcome).toBe(order === undefined ? 'missing' : order.status === 'pending' ? 'shipped' : 'not_pending');
      if (outcome === 'shipped') order!.status = 'shipped';
      return;
    }
    const { response } = await real.clientV2.DELETE('/store/orders/{orderId}', { params: { path: { orderId } } });
    expect(response.status).toBe(order?.status === 'pending' ? 204 : order?.status === 'shipped' ? 409 : 404);
    if (response.status === 204) order!.status = 'cancelled';
  });
  await Promise.all(runs);
  await learnNewOrders(model, real.store);
}

/** Orders the model does not know yet (added or imported), as the store made them. */
export async function learnNewOrders(model: OrderModel, store: AdminStore): Promise<void> {
  for (const stored of await store.orders.listAllOrders()) {
    if (model.orders.has(stored.id)) continue;
    const { petId, quantity, complete, shipDate: date, status } = stored;
    model.orders.set(stored.id, {
      petId: petId!,
      quantity: quantity!,
      complete: complete ?? false,
      ...(date !== undefined && { shipDate: date }),
      status,
    });
  }
}

export class PageWalk implements fc.AsyncCommand<OrderModel, WalkReal> {
  constructor(readonly spec: WalkSpec) {}
  check = () => true;

  async run(model: OrderModel, real: WalkReal): Promise<void> {
    const filter = filterOfQuery(searchParams(this.spec.query));
    const moments: Snapshot[] = [snapshot(model)];
    const seen: OrderV2[] = [];
    let cursor: string | undefined;
    for (let pageNumber = 0; ; pageNumber++) {
      expect(pageNumber).toBeLessThan(500);
      expect(model.orders.size).toBeLessThan(EXAMINED_PER_PAGE);
      const limit = this.spec.limits[Math.min(pageNumber, this.spec.limits.length - 1)]!;
      const query = { ...this.spec.query, limit, ...(cursor !== undefined && { cursor }) };
      const before = moments.at(-1)!;
      const writes = this.spec.writes[pageNumber] ?? [];
      const [{ data, response }] = await Promise.all([
        real.clientV2.GET('/store/orders', { params: { query } }),
        runWrites(writes, model, real),
      ]);
      const after = snapshot(model);
      moments.push(after);
      expect(response.status).toBe(200);
      const page = { headers: response.headers, bodyText: JSON.stringify(data) };
      expect(pageProblems(`/v2/store/orders?${searchParams(query).toString()}`, page)).toEqual([]);
      const last = seen.at(-1)?.id ?? 0;
      for (const order of data!.data) {
        expect(order.id).toBeGreaterThan(last);
        const then = [before.get(order.id), after.get(order.id)].filter((known) => known !== undefined);
        expect(then.map((known) => asShown(order.id, known))).toContainEqual(order);
      }
      if (writes.length === 0) {
        const next = [...after]
          .filter(([id, order]) => id > last && matchesFilter(asShown(id, order), filter))
          .sort(([a], [b]) => a - b)
          .map(([id, order]) => asShown(id, order));
        expect(data!.data).toEqual(next.slice(0, limit));
        expect(data!.hasMore).toBe(next.length > limit);
      }
      seen.push(...data!.data);
      if (!data!.hasMore) break;
      cursor = data!.nextCursor;
    }
    const ids = seen.map((order) => order.id);
    expect(new Set(ids).size).toBe(ids.length);
    const matchedAt = (id: number, moment: Snapshot) => {
      const order = moment.get(id);
      return order !== undefined && matchesFilter(asShown(id, order), filter);
    };
    const everId = new Set(moments.flatMap((moment) => [...moment.keys()]));
    const always = [...everId].filter((id) => moments.every((moment) => matchedAt(id, moment)));
    const never = [...everId].filter((id) => moments.every((moment) => !matchedAt(id, moment)));
    expect(always.filter((id) => !ids.includes(id))).toEqual([]);
    expect(never.filter((id) => ids.includes(id))).toEqual([]);
  }

  toString = () => `v2 page walk ${JSON.stringify(this.spec)}`;
}
