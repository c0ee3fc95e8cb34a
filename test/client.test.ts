// The client the package ships (`store-orders/client`) against a real server: typed results with the key it
// was given, and the Error body as a typed `error`.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createStoreOrdersClient, type ErrorBody } from '../src/client.js';
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
