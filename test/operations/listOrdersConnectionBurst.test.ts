// Issue 40: 200 clients ask for a long list at once and never read. libuv accepts one connection per turn of
// the event loop, and SQLite's lists read a batch of rows per turn: when each turn that accepted one of the
// 200 also read a batch, a health probe's connection queued behind them waited for 200 batches. What is
// counted here is what the server did in each turn, never how long a turn took.
import { connect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { MAX_ACCEPTS_AHEAD } from '../../src/eventLoopTurns.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { SERVER_BACKEND, storeBackend } from '../support/storeBackends.js';
import { watchStreamedLists } from '../support/streamedLists.js';
import { countTurns } from '../support/turns.js';

const CLIENTS = 200;
const STREAMED_AT_ONCE = 8; // MAX_STREAMED_LISTS's default

let server: TestServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

// PostgreSQL sends its rows over a socket, chunk by chunk; SQLite reads them on the event loop, a batch a turn.
it.runIf(storeBackend(SERVER_BACKEND).rowsPerTurn !== undefined)(
  `accepts ${CLIENTS} clients that ask for a long list at once and never read ahead of the list's rows: of the turns that accept one, at most one in ${MAX_ACCEPTS_AHEAD + 1} reads a batch`,
  async () => {
    const started = await startServer({ streamOrdersAbove: 5 });
    server = started;
    const { key } = await createKey(started.store);
    // About 9 MB of JSON a list: more than a loopback socket buffers for a client that never reads, so the
    // lists that are streamed keep reading batches for as long as the connections keep coming, and never end.
    await started.store.orders.importOrders(Array.from({ length: 100_000 }, (_, i) => ({ petId: i + 1, quantity: 1 })));

    // A connection is accepted in the poll phase before the turn's check phase, where the batches are read.
    const loop = countTurns();
    let batches = 0;
    let lists = 0;
    countBatches(started, () => batches++, () => lists++);
    const accepts: { turn: number; batches: number }[] = [];
    started.app.server.on('connection', () => accepts.push({ turn: loop.turn, batches }));

    const { port } = new URL(started.baseUrl);
    const request = `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    for (let i = 0; i < CLIENTS; i++) {
      // No 'data' listener: the client's socket stays paused and reads nothing past its own small buffer.
      const client = connect(Number(port), '127.0.0.1', () => client.write(request));
      client.on('error', () => {});
      sockets.push(client);
    }
    while (accepts.length < CLIENTS) await nextTurn();
    loop.stop();

    const [first, last] = [accepts[0], accepts.at(-1)] as [(typeof accepts)[0], (typeof accepts)[0]];
    // Between the first accept and the last, the loop came back to the check phase `between` times, each
    // turn reading one batch at most; `accepting` of them followed an accept (every one but the last's).
    const between = last.turn - first.turn;
    const accepting = new Set(accepts.map((accept) => accept.turn)).size - 1;
    const readMeanwhile = last.batches - first.batches;
    const allowed = between - accepting + Math.ceil(accepting / (MAX_ACCEPTS_AHEAD + 1));
    expect(lists).toBe(STREAMED_AT_ONCE);
    // The lists were read meanwhile: without the rule, one batch a turn, a batch behind each accept.
    expect(readMeanwhile).toBeGreaterThan(0);
    expect(readMeanwhile, JSON.stringify({ between, accepting, readMeanwhile })).toBeLessThanOrEqual(allowed);
  },
  60_000,
);

/** Calls `onBatch` for each batch of rows a streamed list of the server's store reads, `onList` for each list. */
function countBatches(started: TestServer, onBatch: () => void, onList: () => void): void {
  watchStreamedLists(started, (stream) => {
    onList();
    const push = stream.push.bind(stream);
    stream.push = (batch: unknown) => {
      if (batch !== null) onBatch();
      return push(batch);
    };
  });
}
