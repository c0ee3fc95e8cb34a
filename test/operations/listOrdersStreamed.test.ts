// A list longer than the server keeps in memory is streamed from a snapshot. These servers stream any
// list over 5 orders, so the streamed form can be checked against the in-memory one. Clients that stop
// reading, with default settings and lists that fill the socket buffers, are in test/chaos/stalledReaders.
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClient } from '../support/http.js';
import { openStore } from '../../src/store/open.js';
import { createKey, type StartOptions, startServer, type TestServer } from '../support/server.js';
import { callerFor } from '../support/caller.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serverWith(
  streamOrdersAbove: number,
  options: Omit<StartOptions, 'streamOrdersAbove'> = {},
): Promise<{ server: TestServer; key: string }> {
  const server = await startServer({ streamOrdersAbove, ...options });
  servers.push(server);
  return { server, key: (await createKey(server.store)).key };
}

/** A client that asks for the list, reads the headers, then nothing more. */
function stalledListReader(server: TestServer, key: string): Promise<IncomingMessage> {
  const url = new URL(`${server.baseUrl}/v1/store/orders`);
  return new Promise((resolve, reject) => {
    httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, headers: { Authorization: `Bearer ${key}` } },
      (response) => {
        response.pause();
        resolve(response);
      },
    )
      .on('error', reject)
      .end();
  });
}

/** 2,500 orders (three chunks of the stream), with absent fields, and every fifth cancelled. */
async function addSampleOrders(server: TestServer): Promise<void> {
  await server.store.orders.importOrders(
    Array.from({ length: 2_500 }, (_, index) => {
      const i = index + 1;
      return {
        petId: i,
        ...(i % 3 !== 0 && { quantity: i }),
        ...(i % 2 === 0 && { shipDate: '2026-12-01T09:00:00.000Z' }),
        ...(i % 7 !== 0 && { complete: i % 4 === 0 }),
      };
    }),
  );
  const caller = await callerFor(server.store);
  // Ten at a time, as many as a PostgreSQL pool holds: 500 at once would queue for its connections, and on a
  // busy machine the last would wait past the pool's bound.
  for (let first = 5; first <= 2_500; first += 50) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => server.store.orders.cancelOrder(first + i * 5, caller)));
  }
}

describe('listOrders over the streaming threshold', () => {
  it('sends exactly the list the in-memory path sends', async () => {
    const streamed = await serverWith(5);
    const inMemory = await serverWith(1_000);
    await addSampleOrders(streamed.server);
    await addSampleOrders(inMemory.server);

    const fromStream = await apiClient(streamed.server.baseUrl, streamed.key).GET('/store/orders');
    const fromMemory = await apiClient(inMemory.server.baseUrl, inMemory.key).GET('/store/orders');
    expect(fromStream.response.status).toBe(200);
    expect(fromStream.data).toHaveLength(2_000);
    expect(fromStream.data).toEqual(fromMemory.data);
  });

  it('answers 304 to its ETag, and 200 with the new order after another process adds one', async () => {
    const { server, key } = await serverWith(5);
    await addSampleOrders(server);
    const client = apiClient(server.baseUrl, key);
    const first = await client.GET('/store/orders');
    const etag = first.response.headers.get('etag') ?? '';
    const unchanged = await client.GET('/store/orders', { params: { header: { 'If-None-Match': etag } } });
    expect(unchanged.response.status).toBe(304);

    const other = await openStore(server.database);
    await other.orders.addOrder({ petId: 99, quantity: 1 });
    await other.close();
    const changed = await client.GET('/store/orders', { params: { header: { 'If-None-Match': etag } } });
    expect(changed.response.status).toBe(200);
    expect(changed.data?.at(-1)).toMatchObject({ petId: 99, quantity: 1 });
  });

  it('keeps answering other requests while a client has stopped reading a long list', async () => {
    const { server, key } = await serverWith(5);
    await server.store.orders.importOrders(Array.from({ length: 100_000 }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    // A client that reads the headers, then nothing more: the list waits on it, the server does not.
    const stalled = await stalledListReader(server, key);
    expect(stalled.statusCode).toBe(200);

    const { response } = await apiClient(server.baseUrl, key).POST('/messages', {
      body: { message: 'still here' },
    });
    expect(response.status).toBe(202);
    stalled.destroy();
  });
});
