// The client the package ships (`store-orders/client`) against a real server: typed results with the key it
// was given, and the Error body as a typed `error`; its v2 client pages through a filtered list.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createStoreOrdersClient, createStoreOrdersClientV2, type ErrorBody, type OrderPage } from '../src/client.js';
import { validatingFetch } from './support/http.js';
import { useServer } from './support/server.js';

const t = useServer();

describe('createStoreOrdersClient', () => {
  it('calls the API with its key and returns the typed body', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 7, quantity: 2 });
    const client = createStoreOrdersClient(`${t.server.baseUrl}/v1`, t.key, { fetch: validatingFetch });

    const { data, error, response } = await client.GET('/store/orders');

    expect(response.status).toBe(200);
    expect(error).toBeUndefined();
    expect(data).toEqual([{ id: order.id, petId: 7, quantity: 2, complete: false }]);
    expectTypeOf(data).toEqualTypeOf<
      { id: number; petId?: number; quantity?: number; shipDate?: string; complete?: boolean }[] | undefined
    >();
  });

  it('returns the Error body as `error` when the server refuses the call', async () => {
    const shipped = await t.server.store.orders.addOrder({ petId: 3, quantity: 1, status: 'shipped' });
    const client = createStoreOrdersClient(`${t.server.baseUrl}/v1`, t.key, { fetch: validatingFetch });

    const { data, error, response } = await client.DELETE('/store/orders/{orderId}', {
      params: { path: { orderId: shipped.id } },
    });

    expect(response.status).toBe(409);
    expect(data).toBeUndefined();
    expect(error).toMatchObject({ code: 'order_already_shipped', status: 409 });
    expectTypeOf(error).toEqualTypeOf<ErrorBody | undefined>();
  });

  it('sends the key it was given: an unknown key is 401', async () => {
    const client = createStoreOrdersClient(`${t.server.baseUrl}/v1`, 'sok_not-a-key', {
      fetch: validatingFetch,
    });
    const { error, response } = await client.GET('/store/orders');
    expect(response.status).toBe(401);
    expect(error).toEqual({ code: 'unauthorized', message: 'A valid API key is required', status: 401 });
  });
});

describe('createStoreOrdersClientV2', () => {
  it('walks every page of a filtered list by its cursor, and refuses a cursor sent with other filters', async () => {
    const pending = [];
    for (let index = 0; index < 5; index += 1) {
      pending.push(await t.server.store.orders.addOrder({ petId: 7, quantity: index + 1 }));
      await t.server.store.orders.addOrder({ petId: 3, quantity: 1, status: 'shipped' });
    }
    const client = createStoreOrdersClientV2(`${t.server.baseUrl}/v2`, t.key, { fetch: validatingFetch });

    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data, error } = await client.GET('/store/orders', {
        params: { query: { limit: 2, status: ['pending'], ...(cursor !== undefined && { cursor }) } },
      });
      if (error) throw new Error(`${error.status} ${error.code}`);
      expectTypeOf(data).toEqualTypeOf<OrderPage>();
      pages += 1;
      expect(data.data.every((order) => order.status === 'pending')).toBe(true);
      seen.push(...data.data.map((order) => order.id));
      cursor = data.nextCursor;
      if (data.hasMore) {
        const { error: mismatch } = await client.GET('/store/orders', {
          params: { query: { limit: 2, status: ['shipped'], cursor: data.nextCursor ?? '' } },
        });
        expect(mismatch).toMatchObject({ code: 'cursor_mismatch', status: 400 });
      }
    } while (cursor !== undefined);

    expect(pages).toBe(3);
    expect(seen).toEqual(pending.map((order) => order.id));
  });
});
