// The streams of a test server's long lists, as its store gives them to the server: for the tests that read
// what the server did with each list (its batches, its backpressure).
import type { Readable } from 'node:stream';
import { UNAUTHORIZED } from '../../src/store/store.js';
import type { TestServer } from './server.js';

/** Calls `onStream` with each stream a list of the server's store gives, before the server reads it. */
export function watchStreamedLists(server: TestServer, onStream: (stream: Readable) => void): void {
  // The server looks the method up on each request, so it finds this one.
  const { orders } = server.store;
  const listOrders = orders.listOrders.bind(orders);
  orders.listOrders = async (caller) => {
    const list = await listOrders(caller);
    if (list === UNAUTHORIZED || !('rows' in list)) return list;
    return {
      ...list,
      rows: () => {
        const stream = list.rows();
        if (stream) onStream(stream);
        return stream;
      },
    };
  };
}
