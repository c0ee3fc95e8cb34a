// A streamed list is read from the database only as fast as the client takes it (backpressure): a client
// that reads nothing holds a few chunks in the server, not the list. And however many lists fill their
// clients' sockets at once, each turn of the event loop reads one batch of rows among them all.
import { connect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { SERVER_BACKEND, storeBackend } from '../support/storeBackends.js';
import { watchStreamedLists } from '../support/streamedLists.js';
import { countTurns } from '../support/turns.js';

/** Every order stream the store hands the server, to measure what it holds; on any backend. */
const streams: Readable[] = [];

/** A server whose store's lists record each stream they give. */
async function recordingServer(streamOrdersAbove: number): Promise<TestServer> {
  const started = await startServer({ streamOrdersAbove });
  watchStreamedLists(started, (stream) => streams.push(stream));
  return started;
}

let server: TestServer;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  streams.splice(0);
  await server.close();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('a streamed list to a client that reads nothing', () => {
  it('holds at most a few chunks in the server, whatever the length of the list', async () => {
    server = await recordingServer(5);
    const { key } = await createKey(server.store);
    // Far more than the loopback socket buffers of both ends can take (about 18 MB of JSON).
    await server.store.orders.importOrders(Array.from({ length: 400_000 }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    const serverSide: Socket[] = [];
    server.app.server.on('connection', (socket: Socket) => serverSide.push(socket));

    const { port } = new URL(server.baseUrl);
    const client = connect(Number(port), '127.0.0.1');
    sockets.push(client);
    // No 'data' listener: the client's socket stays paused and reads nothing past its own small buffer.
    client.write(`GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    while (streams.length === 0) await nextTurn();
    const [stream] = streams as [Readable];
    const held = () => stream.readableLength + (serverSide[0]?.writableLength ?? 0);

    // The stream pushes one chunk per turn of the event loop; once nothing changes for many turns, it has
    // stopped, waiting for the client (or, without backpressure, has pushed the whole list).
    let last = -1;
    for (let unchanged = 0; unchanged < 200; ) {
      await nextTurn();
      const now = held();
      unchanged = now === last ? unchanged + 1 : 0;
      last = now;
    }
    expect(stream.destroyed).toBe(false);
    expect(held()).toBeLessThan(1024 * 1024);
  }, 60_000);

  // PostgreSQL sends its rows over a socket, chunk by chunk; SQLite reads them on the event loop.
  const { rowsPerTurn } = storeBackend(SERVER_BACKEND);
  it.runIf(rowsPerTurn !== undefined)(
    'reads at most ROWS_PER_TURN rows a turn among eight lists filling their sockets at once',
    async () => {
      const ROWS_PER_TURN = rowsPerTurn as number;
      server = await recordingServer(5);
      const { key } = await createKey(server.store);
      await server.store.orders.importOrders(Array.from({ length: 100_000 }, (_, i) => ({ petId: i + 1, quantity: 1 })));
      const loop = countTurns();

      const { port } = new URL(server.baseUrl);
      for (let i = 0; i < 8; i++) {
        const client = connect(Number(port), '127.0.0.1');
        sockets.push(client);
        client.write(`GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      }
      while (streams.length < 8) await nextTurn();
      const rowsInTurn = new Map<number, number>();
      for (const stream of streams) {
        const push = stream.push.bind(stream);
        stream.push = (batch: string[] | null) => {
          if (batch) rowsInTurn.set(loop.turn, (rowsInTurn.get(loop.turn) ?? 0) + batch.length);
          return push(batch);
        };
      }
      // Until every list has stopped, waiting for its client, or has been read to its end.
      const read = () => [...rowsInTurn.values()].reduce((sum, rows) => sum + rows, 0);
      let last = -1;
      for (let unchanged = 0; unchanged < 200; ) {
        await nextTurn();
        unchanged = read() === last ? unchanged + 1 : 0;
        last = read();
      }
      loop.stop();
      // Several megabytes went into the sockets' buffers, a batch at a time.
      expect(read()).toBeGreaterThan(8 * 5 * ROWS_PER_TURN);
      expect(Math.max(...rowsInTurn.values())).toBeLessThanOrEqual(ROWS_PER_TURN);
    },
    60_000,
  );
});
