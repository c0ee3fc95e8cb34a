import { describe, expect, it } from 'vitest';
import { apiClient, rawRequest } from '../support/http.js';
import { useServer } from '../support/server.js';
import { callerFor } from '../support/caller.js';

const t = useServer();

describe('listOrders', () => {
  it('returns every order that is not cancelled, ordered by id, with exactly the Order fields', async () => {
    const first = await t.server.store.orders.addOrder({ petId: 7, quantity: 2, shipDate: '2026-12-01T09:00:00.000Z' });
    const cancelled = await t.server.store.orders.addOrder({ petId: 8, quantity: 1 });
    const shipped = await t.server.store.orders.addOrder({ petId: 9, quantity: 3, status: 'shipped', complete: true });
    await t.server.store.orders.cancelOrder(cancelled.id, await callerFor(t.server.store));

    const { data, response } = await apiClient(t.server.baseUrl, t.key).GET('/store/orders');

    expect(response.status).toBe(200);
    expect(data).toEqual([
      { id: first.id, petId: 7, quantity: 2, shipDate: '2026-12-01T09:00:00.000Z', complete: false },
      { id: shipped.id, petId: 9, quantity: 3, complete: true },
    ]);
  });

  it('leaves out a value the store does not have instead of sending null', async () => {
    await t.server.store.orders.importOrders([{ petId: 4 }]);
    const { data } = await apiClient(t.server.baseUrl, t.key).GET('/store/orders');
    const text = JSON.stringify(data);
    expect(text).not.toContain('null');
    expect(data?.[0]).not.toHaveProperty('quantity');
    expect(data?.[0]).not.toHaveProperty('shipDate');
  });

  it('returns an empty array when there are no orders', async () => {
    const { data } = await apiClient(t.server.baseUrl, t.key).GET('/store/orders');
    expect(data).toEqual([]);
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 once the list changes', async () => {
    await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    const client = apiClient(t.server.baseUrl, t.key);
    const first = await client.GET('/store/orders');
    const etag = first.response.headers.get('etag') as string;

    const unchanged = await client.GET('/store/orders', { params: { header: { 'If-None-Match': etag } } });
    expect(unchanged.response.status).toBe(304);
    expect(unchanged.response.headers.get('etag')).toBe(etag);

    await t.server.store.orders.addOrder({ petId: 2, quantity: 1 });
    const changed = await client.GET('/store/orders', { params: { header: { 'If-None-Match': etag } } });
    expect(changed.response.status).toBe(200);
    expect(changed.response.headers.get('etag')).not.toBe(etag);
    expect(changed.data).toHaveLength(2);
  });

  it('treats If-None-Match: * and weak or listed tags as matches', async () => {
    const client = apiClient(t.server.baseUrl, t.key);
    const etag = (await client.GET('/store/orders')).response.headers.get('etag') as string;
    for (const ifNoneMatch of ['*', `W/${etag}`, `"other", ${etag}`]) {
      const { response } = await client.GET('/store/orders', {
        params: { header: { 'If-None-Match': ifNoneMatch } },
      });
      expect(response.status, ifNoneMatch).toBe(304);
    }
  });

  it('marks the answer Cache-Control: no-store', async () => {
    const { response } = await apiClient(t.server.baseUrl, t.key).GET('/store/orders');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 401 with WWW-Authenticate when the key is missing', async () => {
    const { error, response } = await apiClient(t.server.baseUrl).GET('/store/orders');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(error).toEqual({ code: 'unauthorized', message: expect.any(String), status: 401 });
  });

  it('refuses query parameters it does not define, such as pagination, with 400', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/store/orders?limit=1`, {
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      code: 'invalid_request',
      message: 'query: must not have the property "limit"',
    });
  });
});
