import { describe, expect, it } from 'vitest';
import { apiClient, rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';

const t = useServer();

const cancel = (orderId: number) =>
  apiClient(t.server.baseUrl, t.key).DELETE('/store/orders/{orderId}', { params: { path: { orderId } } });

describe('cancelOrder', () => {
  it('cancels a pending order with 204 and no body, and it is no longer listed', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const { response } = await cancel(order.id);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect((await t.server.store.orders.findOrder(order.id))?.status).toBe('cancelled');
    const { data } = await apiClient(t.server.baseUrl, t.key).GET('/store/orders');
    expect(data).toEqual([]);
  });

  it('answers 409 and leaves a shipped order unchanged', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
    const before = await t.server.store.orders.findOrder(order.id);
    const { error, response } = await cancel(order.id);
    expect(response.status).toBe(409);
    expect(error?.code).toBe('order_already_shipped');
    expect(await t.server.store.orders.findOrder(order.id)).toEqual(before);
  });

  it('answers 404 for an order that does not exist', async () => {
    const { error, response } = await cancel(12345);
    expect(response.status).toBe(404);
    expect(error?.code).toBe('order_not_found');
  });

  it('answers 404 for an order that was already cancelled', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    expect((await cancel(order.id)).response.status).toBe(204);
    const { error, response } = await cancel(order.id);
    expect(response.status).toBe(404);
    expect(error?.code).toBe('order_not_found');
  });

  it('answers 404 for a valid int64 id beyond any issued id, naming that exact id', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/9223372036854775807`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ message: 'No order 9223372036854775807' });
  });

  it('answers 404 not_found to a trailing slash, a path the contract does not have', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/${order.id}/`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.json).toEqual({ code: 'not_found', message: 'No such path', status: 404 });
    expect((await t.server.store.orders.findOrder(order.id))?.status).toBe('pending');
  });

  it.each([
    'abc',
    '1.5',
    '1e3',
    '0x10',
    '%201',
    '-1',
    '0',
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999999999',
  ])('answers 400 to the id %s', async (orderId) => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/${orderId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it.each([
    ['no leading zero', ''],
    ['4 leading zeros', '0000'],
    ['40 leading zeros', '0'.repeat(40)],
    ['5,000 leading zeros', '0'.repeat(5_000)],
  ])('reads an id with %s as the same decimal number', async (_name, zeros) => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/${zeros}${order.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.status).toBe(204);
    expect((await t.server.store.orders.findOrder(order.id))?.status).toBe('cancelled');
  });

  it.each(['abc', '1.5', '+1', '0', '-1', '0'.repeat(30), '9223372036854775808', `${'0'.repeat(30)}9223372036854775808`])(
    'answers the id %s with the one message that states the whole rule',
    async (orderId) => {
      const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/${orderId}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${t.key}` },
      });
      expect(response.json).toEqual({
        code: 'invalid_request',
        message: 'orderId: must be a whole number from 1 to 9223372036854775807 in decimal digits (leading zeros allowed)',
        status: 400,
      });
    },
  );

  it('gives exactly one 204 among concurrent cancels of one order', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => (await cancel(order.id)).response.status),
    );
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    expect(statuses.filter((status) => status === 404)).toHaveLength(19);
  });

  it('checks the key before the id: a bad id without a key is 401', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders/abc`, { method: 'DELETE' });
    expect(response.status).toBe(401);
  });
});
