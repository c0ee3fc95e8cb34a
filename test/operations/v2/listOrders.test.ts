// API v2's listOrders: pages in id order, filters with their exact bounds, a cursor tied to its filters,
// Link rel="next", ETags, and a walk that stays exact while other clients write.
import { describe, expect, it } from 'vitest';
import type { components } from '../../../generated/openapi.v2.js';
import { EXAMINED_PER_PAGE } from '../../../src/store/orderPages.js';
import type { NewOrder } from '../../../src/store/store.js';
import { apiClientV2, rawRequest } from '../../support/http.js';
import { useServer } from '../../support/server.js';
import { callerFor } from '../../support/caller.js';

type Order = components['schemas']['Order'];
type Query = { limit?: number; cursor?: string; status?: Order['status'][]; petId?: number; complete?: boolean;
  shipDateFrom?: string; shipDateBefore?: string };

const t = useServer();

const client = () => apiClientV2(t.server.baseUrl, t.key);
const list = async (query: Query = {}) => {
  const { data, error, response } = await client().GET('/store/orders', { params: { query } });
  if (!data) throw new Error(`listOrders answered ${response.status}: ${JSON.stringify(error)}`);
  return { ...data, response };
};
const raw = (query: string) =>
  rawRequest(`${t.server.baseUrl}/v2/store/orders${query}`, { headers: { Authorization: `Bearer ${t.key}` } });

/** Every order the filters match, page after page, following nextCursor. */
async function walk(query: Query, onPage: (page: number) => Promise<void> = async () => {}): Promise<Order[]> {
  const orders: Order[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    const { data, hasMore, nextCursor } = await list({ ...query, ...(cursor !== undefined && { cursor }) });
    orders.push(...data);
    if (!hasMore) return orders;
    cursor = nextCursor;
    await onPage(page);
  }
}

async function addOrders(count: number, order: (i: number) => NewOrder = () => ({ petId: 1, quantity: 1 })) {
  await t.server.store.orders.importOrders(Array.from({ length: count }, (_, i) => order(i)));
  return (await t.server.store.orders.listAllOrders()).map(({ id }) => id);
}

describe('v2 listOrders: pages', () => {
  it('lists pending and shipped orders with their status, in id order, 100 to a page by default', async () => {
    const ids = await addOrders(150, (i) => ({ petId: i + 1, quantity: 1, status: i % 3 === 0 ? 'shipped' : 'pending' }));
    await t.server.store.orders.cancelOrder(ids[1] as number, await callerFor(t.server.store));

    const first = await list();
    expect(first.data).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    expect(first.data[0]).toEqual({ id: ids[0], petId: 1, quantity: 1, complete: false, status: 'shipped' });
    expect(first.data.map(({ id }) => id)).not.toContain(ids[1]);
    expect(first.data.map(({ id }) => id)).toEqual([...first.data.map(({ id }) => id)].sort((a, b) => a - b));
    const second = await list({ cursor: first.nextCursor as string });
    expect([second.data.length, second.hasMore, second.nextCursor]).toEqual([49, false, undefined]);
    expect(second.response.headers.get('link')).toBeNull();
  });

  it('takes limit from 1 to 1,000 and answers 400 limit_out_of_range beyond', async () => {
    await addOrders(1_005);
    expect((await list({ limit: 1 })).data).toHaveLength(1);
    expect((await list({ limit: 1_000 })).data).toHaveLength(1_000);
    for (const limit of ['0', '1001', '-5', '99999999999']) {
      const response = await raw(`?limit=${limit}`);
      expect([response.status, (response.json as { code: string }).code]).toEqual([400, 'limit_out_of_range']);
    }
    // Whole numbers in decimal digits only: JavaScript would read 0x10 as 16 and 1e3 as 1000.
    for (const limit of ['ten', '0x10', '1e3', '5.0', '+5', '']) {
      const response = await raw(`?limit=${limit}`);
      expect([limit, response.status, (response.json as { code: string }).code]).toEqual([limit, 400, 'invalid_request']);
    }
    expect((await raw('?limit=0003')).status).toBe(200);
  });

  it('gives the next page in nextCursor and in a Link header with the same query, as sent, and the cursor', async () => {
    await addOrders(5, (i) => ({ petId: 7, quantity: i + 1, complete: i % 2 === 0 }));
    const first = await raw('?petId=7&complete=true&limit=2&status=shipped&status=pending');
    const { nextCursor } = first.json as { nextCursor: string };
    expect(first.headers.get('link')).toBe(
      `</v2/store/orders?petId=7&complete=true&limit=2&status=shipped&status=pending&cursor=${nextCursor}>; rel="next"`,
    );
    const next = await raw((first.headers.get('link') as string).replace(/^<\/v2\/store\/orders(.*)>; rel="next"$/, '$1'));
    expect((next.json as { data: Order[] }).data.map(({ quantity }) => quantity)).toEqual([5]);
  });

  it('walks every matching order exactly once, whatever the page size, which may change from page to page', async () => {
    const ids = await addOrders(57);
    for (const limit of [1, 7, 56, 57, 58]) expect((await walk({ limit })).map(({ id }) => id)).toEqual(ids);
    const first = await list({ limit: 10 });
    const rest = await list({ limit: 1_000, cursor: first.nextCursor as string });
    expect([...first.data, ...rest.data].map(({ id }) => id)).toEqual(ids);
  });

  it('answers an empty last page when nothing matches', async () => {
    expect(await list()).toMatchObject({ data: [], hasMore: false });
  });
});

describe('v2 listOrders: filters', () => {
  it('lists cancelled orders only when asked for, alone or with other statuses', async () => {
    const ids = await addOrders(4, (i) => ({ petId: 1, quantity: 1, status: i === 3 ? 'shipped' : 'pending' }));
    await t.server.store.orders.cancelOrder(ids[0] as number, await callerFor(t.server.store));
    const statuses = async (query: Query) => (await walk(query)).map(({ id, status }) => [id, status]);
    expect(await statuses({})).toEqual([[ids[1], 'pending'], [ids[2], 'pending'], [ids[3], 'shipped']]);
    expect(await statuses({ status: ['cancelled'] })).toEqual([[ids[0], 'cancelled']]);
    expect(await statuses({ status: ['shipped', 'cancelled'] })).toEqual([[ids[0], 'cancelled'], [ids[3], 'shipped']]);
    expect(await statuses({ status: ['pending', 'shipped', 'cancelled'] })).toHaveLength(4);
  });

  it('filters by pet and by complete', async () => {
    const ids = await addOrders(4, (i) => ({ petId: i < 2 ? 5 : 6, complete: i === 1 }));
    expect((await walk({ petId: 5 })).map(({ id }) => id)).toEqual([ids[0], ids[1]]);
    expect((await walk({ complete: true })).map(({ id }) => id)).toEqual([ids[1]]);
    expect((await walk({ complete: false })).map(({ id }) => id)).toEqual([ids[0], ids[2], ids[3]]);
    expect(await walk({ petId: 5, complete: false })).toHaveLength(1);
    expect(await walk({ petId: 2 ** 60 })).toEqual([]);
  });

  it('takes shipDateFrom inclusive and shipDateBefore exclusive, as instants in any zone, to the millisecond', async () => {
    const dates = ['2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.001Z', '2026-12-02T00:00:00.000Z'];
    const ids = await addOrders(4, (i) => ({ petId: 1, ...(i < 3 && { shipDate: dates[i] }) }));
    const idsOf = async (query: Query) => (await walk(query)).map(({ id }) => id);
    expect(await idsOf({ shipDateFrom: '2026-12-01T00:00:00Z' })).toEqual(ids.slice(0, 3));
    expect(await idsOf({ shipDateFrom: '2026-12-01T01:00:00.0001+01:00' })).toEqual([ids[1], ids[2]]);
    expect(await idsOf({ shipDateBefore: '2026-12-02T00:00:00Z' })).toEqual([ids[0], ids[1]]);
    expect(await idsOf({ shipDateBefore: '2026-12-01T00:00:00.0005Z' })).toEqual([ids[0]]);
    expect(await idsOf({ shipDateFrom: '2026-12-01T00:00:00.001Z', shipDateBefore: '2026-12-02T00:00:00Z' })).toEqual([
      ids[1],
    ]);
    // An order without a ship date matches no bound; a leap second is followed by the next minute.
    expect(await idsOf({ shipDateBefore: '2026-12-31T23:59:60Z' })).toEqual(ids.slice(0, 3));
  });

  it('answers 400 invalid_request to an unknown parameter, a bad status or a date-time without a zone', async () => {
    const beyondInt64 = '?petId=9223372036854775808';
    for (const query of ['?offset=5', '?status=lost', '?shipDateFrom=2026-12-01T00:00:00', '?petId=0', '?petId=1e3', beyondInt64, '?complete=yes']) {
      const response = await raw(query);
      expect([query, response.status, (response.json as { code: string }).code]).toEqual([query, 400, 'invalid_request']);
    }
  });
});

describe('v2 listOrders: ship-date bounds beyond the instants an answer can carry (years 0000 to 9999 in UTC)', () => {
  it('compares them as instants: later than every ship date, or earlier than every one', async () => {
    const dates = ['0000-01-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'];
    const ids = await addOrders(4, (i) => ({ petId: 1, ...(i < 3 && { shipDate: dates[i] }) }));
    const dated = ids.slice(0, 3);
    const idsOf = async (query: Query) => (await walk(query)).map(({ id }) => id);
    // Each of these is an instant of the year 10000 in UTC: after every ship date.
    for (const beyond of ['9999-12-31T23:00:00-01:00', '9999-12-31T23:59:60Z', '9999-12-31T23:59:59.9999Z']) {
      expect([beyond, await list({ shipDateFrom: beyond })]).toMatchObject([beyond, { data: [], hasMore: false }]);
      expect([beyond, await idsOf({ shipDateBefore: beyond })]).toEqual([beyond, dated]);
      expect([beyond, await idsOf({ shipDateFrom: '2026-12-01T00:00:00Z', shipDateBefore: beyond })]).toEqual([
        beyond,
        dated.slice(1),
      ]);
    }
    // And this one of the year -1: before every ship date.
    const before = '0000-01-01T00:00:00+01:00';
    expect(await idsOf({ shipDateFrom: before })).toEqual(dated);
    expect(await list({ shipDateBefore: before })).toMatchObject({ data: [], hasMore: false });
    // The edges themselves are instants like any other.
    expect(await idsOf({ shipDateFrom: '9999-12-31T23:59:59.999Z' })).toEqual([dated[2]]);
    expect(await idsOf({ shipDateBefore: '0000-01-01T00:00:00.001Z' })).toEqual([dated[0]]);
  });

  it('takes a bound beyond them as the filter it is the same as, for the cursor too', async () => {
    await addOrders(3, () => ({ petId: 1, shipDate: '2026-12-01T00:00:00.000Z' }));
    const cursor = (await list({ limit: 1, shipDateBefore: '9999-12-31T23:00:00-01:00' })).nextCursor as string;
    // Before an instant after every ship date is any ship date: from the first instant on.
    expect((await list({ limit: 1, cursor, shipDateFrom: '0000-01-01T00:00:00Z' })).data).toHaveLength(1);
    expect((await list({ limit: 1, cursor, shipDateBefore: '9999-12-31T23:59:60Z' })).data).toHaveLength(1);
  });

  it('answers a ship-date range that holds no instant at once, as the last page', async () => {
    await addOrders(2, () => ({ petId: 1, shipDate: '2026-12-01T00:00:00.000Z' }));
    for (const query of [
      { shipDateFrom: '2026-12-02T00:00:00Z', shipDateBefore: '2026-12-01T00:00:00Z' },
      { shipDateFrom: '2026-12-01T00:00:00Z', shipDateBefore: '2026-12-01T00:00:00Z' },
    ]) {
      expect(await list(query)).toMatchObject({ data: [], hasMore: false });
    }
  });
});

describe('v2 listOrders: the work of one page', () => {
  it(`examines at most ${EXAMINED_PER_PAGE.toLocaleString('en')} orders: a page that finds no match among them is empty, with hasMore and a cursor past them`, async () => {
    // Only the 7th and the one after twice the bound match complete=true.
    const count = 2 * EXAMINED_PER_PAGE + 5;
    const matching = [7, 2 * EXAMINED_PER_PAGE + 3];
    const ids = await addOrders(count, (i) => ({ petId: 1, quantity: 1, complete: matching.includes(i + 1) }));
    expect(ids.at(-1)).toBe(count);
    const first = await list({ complete: true });
    expect([first.data.map(({ id }) => id), first.hasMore]).toEqual([[7], true]);
    const second = await list({ complete: true, cursor: first.nextCursor as string });
    expect([second.data, second.hasMore]).toEqual([[], true]);
    expect(second.response.headers.get('link')).toContain(`cursor=${second.nextCursor}`);
    const third = await list({ complete: true, cursor: second.nextCursor as string });
    expect([third.data.map(({ id }) => id), third.hasMore]).toEqual([[2 * EXAMINED_PER_PAGE + 3], false]);
    // A walk still lists every match once, and a page whose orders all match is still full.
    expect((await walk({ complete: true, limit: 1 })).map(({ id }) => id)).toEqual(matching);
    expect((await list({ complete: false, limit: 1_000 })).data).toHaveLength(1_000);
  });
});

describe('v2 listOrders: the cursor', () => {
  it('answers 400 cursor_mismatch to a cursor sent with other filters, however they were written', async () => {
    await addOrders(3, () => ({ petId: 1, shipDate: '2026-12-01T00:00:00.000Z' }));
    const query: Query = { limit: 1, status: ['pending', 'shipped'], shipDateFrom: '2026-12-01T01:00:00+01:00' };
    const cursor = (await list(query)).nextCursor as string;
    // The same filters written otherwise: statuses in another order, the bound in another zone, no status.
    expect((await list({ ...query, cursor, status: ['shipped', 'pending'], shipDateFrom: '2026-12-01T00:00:00Z' })).data).toHaveLength(1);
    expect((await list({ cursor, limit: 1, shipDateFrom: '2026-12-01T00:00:00.000Z' })).data).toHaveLength(1);
    for (const other of [{ petId: 1 }, { status: ['pending' as const] }, { shipDateFrom: '2026-11-01T00:00:00Z' }]) {
      const { error, response } = await client().GET('/store/orders', { params: { query: { ...query, ...other, cursor } } });
      expect([response.status, error?.code]).toEqual([400, 'cursor_mismatch']);
    }
  });

  it('answers 400 invalid_cursor to a cursor the server did not make', async () => {
    const made = (json: string) => Buffer.from(json).toString('base64url');
    for (const cursor of ['abc', made('{"a":-1,"f":"x"}'), made('{"a":1.5,"f":"x"}'), made('[1]'), made('null'), 'x'.repeat(512)]) {
      const { error, response } = await client().GET('/store/orders', { params: { query: { cursor } } });
      expect([cursor, response.status, error?.code]).toEqual([cursor, 400, 'invalid_cursor']);
    }
    const tooLong = await raw(`?cursor=${'x'.repeat(513)}`);
    expect([tooLong.status, (tooLong.json as { code: string }).code]).toEqual([400, 'invalid_request']);
  });
});

describe('v2 listOrders: conditional requests', () => {
  it('answers 304 to the page ETag while the page is unchanged, and 200 with a new one once it changes', async () => {
    const ids = await addOrders(3);
    const first = await list({ limit: 2 });
    const etag = first.response.headers.get('etag') as string;
    const again = await client().GET('/store/orders', { params: { query: { limit: 2 }, header: { 'If-None-Match': etag } } });
    expect([again.response.status, again.response.headers.get('etag')]).toEqual([304, etag]);
    // Another page, another tag.
    expect((await list({ limit: 1 })).response.headers.get('etag')).not.toBe(etag);
    await t.server.store.orders.shipOrder(ids[0] as number);
    const changed = await client().GET('/store/orders', { params: { query: { limit: 2 }, header: { 'If-None-Match': etag } } });
    expect(changed.response.status).toBe(200);
    expect(changed.data?.data[0]?.status).toBe('shipped');
  });
});

describe('v2 listOrders: a walk while others write', () => {
  it('never returns an order twice and never skips one that existed and matched for the whole walk', async () => {
    const ids = await addOrders(300, (i) => ({ petId: 1, quantity: 1, status: i % 4 === 0 ? 'shipped' : 'pending' }));
    const store = t.server.store.orders;
    const touched = new Set<number>();
    let added: number[] = [];
    const seen = await walk({ limit: 17 }, async (page) => {
      // Between pages: cancel some orders on either side of the walk, ship some, add new ones at the end.
      for (const id of [ids[page * 17 + 3], ids[299 - page]]) {
        if (id === undefined) continue;
        touched.add(id);
        await store.cancelOrder(id, await callerFor(t.server.store));
      }
      const toShip = ids[(page * 31) % 300] as number;
      touched.add(toShip);
      await store.shipOrder(toShip);
      added = await addOrders(2);
    });
    const seenIds = seen.map(({ id }) => id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    expect(seenIds).toEqual([...seenIds].sort((a, b) => a - b));
    for (const id of ids.filter((id) => !touched.has(id))) expect(seenIds).toContain(id);
    // Orders added behind the walk's position are listed when it reaches them: the last ones are.
    expect(seenIds).toContain(added.at(-1));
    // Each order as it was when its page was read: cancelled ones only once asked for, which this walk did not.
    expect(seen.filter(({ status }) => status === 'cancelled')).toEqual([]);
  });
});

describe('v2 cancelOrder and sendMessage', () => {
  it('cancel as in v1; a cancelled order is then listed only with status=cancelled', async () => {
    const [id] = await addOrders(1);
    const cancel = () => client().DELETE('/store/orders/{orderId}', { params: { path: { orderId: id as number } } });
    expect((await cancel()).response.status).toBe(204);
    expect((await cancel()).error).toMatchObject({ code: 'order_not_found', status: 404 });
    expect(await walk({})).toEqual([]);
    expect(await walk({ status: ['cancelled'] })).toEqual([{ id, petId: 1, quantity: 1, complete: false, status: 'cancelled' }]);
  });

  it('queue a message as in v1, with the same key', async () => {
    const { data, response } = await client().POST('/messages', { body: { message: 'hello v2' } });
    expect(response.status).toBe(202);
    expect(data).toMatchObject({ message: 'hello v2', status: 'queued' });
  });
});
