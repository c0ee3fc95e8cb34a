// Clients that stop reading a streamed list, on real sockets against a server whose idle timeout is
// lowered to a few seconds: the guard works the same at any length (test/chaos/stalledReaders runs the
// default 30 s). The list is several times what the socket buffers of both ends hold, so the server really
// is left holding it; what the server did is read from its log, its socket and its database, not a clock.
import type { Socket } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { openSocket, parseAnswers, readAtRate, readUntilClosed } from '../support/rawSocket.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { connectionEnds } from '../support/tcpTable.js';

const IDLE_MS = 2_000;
/** About 13 MB of JSON. */
const ORDERS = 300_000;

let server: TestServer;
let key: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServer({ http: { ...DEFAULT_HTTP_LIMITS, idleTimeoutMs: IDLE_MS }, logLevel: 'warn' });
  ({ key } = await createKey(server.store));
  await server.store.orders.importOrders(Array.from({ length: ORDERS }, (_, i) => ({ petId: i + 1, quantity: 1 })));
}, 60_000);

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  server.logs.splice(0);
});

afterAll(() => server?.close());

const listRequest = (close = false) =>
  `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

async function connection(): Promise<Socket> {
  const socket = await openSocket(server.baseUrl);
  sockets.push(socket);
  return socket;
}

/** What the kernel still has of the connection of `socket`: nothing once it was reset. */
const endsOf = (socket: Socket) => connectionEnds(socket.localPort as number, Number(new URL(server.baseUrl).port));

/** The server's warnings that it cut a reader off, with the time it logged each. */
const cutOffs = () =>
  server.logs
    .filter((line) => line.includes('stopped reading a streamed answer'))
    .map((line) => JSON.parse(line) as { time: number });

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  // Not a bound on the behaviour: only how long to wait before calling it never.
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never saw that ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether a list still holds a snapshot: after a new commit, a passive checkpoint (which waits for nobody)
 * cannot copy the whole write-ahead log back while a reader holds an older snapshot.
 */
async function snapshotHeld(): Promise<boolean> {
  await server.store.pets.addPet('Rex');
  const other = new Database(server.dbPath);
  try {
    const [{ log, checkpointed }] = other.pragma('wal_checkpoint(PASSIVE)') as [{ log: number; checkpointed: number }];
    return checkpointed < log;
  } finally {
    other.close();
  }
}

describe('a client that stops reading a long list', () => {
  it('has its connection reset once nothing moves for the idle timeout, which frees the snapshot', async () => {
    const socket = await connection();
    socket.pause();
    const sentAt = Date.now();
    socket.write(listRequest());
    await until(snapshotHeld, 'the list holds a snapshot');
    expect(endsOf(socket).map(({ state }) => state)).toEqual(['ESTABLISHED', 'ESTABLISHED']);

    await until(() => cutOffs().length === 1, 'the server cut the reader off');
    // The server's own clock: never before the idle timeout (a busy machine only makes it later).
    expect((cutOffs()[0] as { time: number }).time - sentAt).toBeGreaterThanOrEqual(IDLE_MS);
    // A reset: neither end is left holding the megabytes the client did not read.
    await until(() => endsOf(socket).length === 0, 'both ends of the connection are gone');
    await until(async () => !(await snapshotHeld()), 'the snapshot is freed');
    // The client reads what its own socket had buffered, a list cut short: no closing chunk.
    const ended = readUntilClosed(socket);
    socket.resume();
    const { text } = await ended;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.endsWith('\r\n0\r\n\r\n')).toBe(false);
  }, 60_000);

  it('frees the snapshot of a list pipelined behind it, which Node never hands the connection', async () => {
    // Two requests in one write: the second list waits behind the first, itself holding a snapshot.
    const socket = await connection();
    socket.pause();
    socket.write(listRequest() + listRequest());

    await until(() => cutOffs().length > 0, 'the server cut the reader off');
    await until(() => endsOf(socket).length === 0, 'both ends of the connection are gone');
    await until(async () => !(await snapshotHeld()), 'no list holds a snapshot');
    // Only the answer being sent has a timer: the one waiting behind it ends with the connection.
    expect(cutOffs()).toHaveLength(1);
  }, 60_000);

  it('never cuts off a pipelined list while the one before it is still being read, however long that takes', async () => {
    const socket = await connection();
    const ended = readUntilClosed(socket);
    // 4 MB/s: the first list takes longer than the idle timeout, yet the socket moves every few ms.
    readAtRate(socket, 4_000);
    const startedAt = Date.now();
    socket.write(listRequest() + listRequest(true));

    const { text, error } = await ended;
    expect(error).toBeUndefined();
    expect(Date.now() - startedAt).toBeGreaterThan(IDLE_MS);
    const answers = parseAnswers(text);
    expect(answers.map(({ status }) => status)).toEqual([200, 200]);
    for (const { bodyText } of answers) expect(JSON.parse(bodyText)).toHaveLength(ORDERS);
    expect(cutOffs()).toEqual([]);
  }, 90_000);
});
