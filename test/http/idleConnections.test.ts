// Clients of an answer that is not streamed, on real sockets against a server whose idle timeout is lowered
// to a few seconds: one that stops reading has its connection closed once nothing has moved for the idle
// timeout, one that reads slowly but steadily never does, however long the answer takes. The answer is one
// list of about 13 MB sent whole (the streaming threshold raised above it), several times what the socket
// buffers of both ends hold, so the server really is left holding it. What the server did is read from its
// log and the kernel's table of connections, not a clock.
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { openSocket, parseAnswers, readAtRate, readUntilClosed } from '../support/rawSocket.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { connectionEnds } from '../support/tcpTable.js';

const IDLE_MS = 2_000;
const ORDERS = 300_000;

let server: TestServer;
let key: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServer({
    http: { ...DEFAULT_HTTP_LIMITS, idleTimeoutMs: IDLE_MS },
    streamOrdersAbove: ORDERS,
    logLevel: 'warn',
  });
  ({ key } = await createKey(server.store));
  await server.store.orders.importOrders(Array.from({ length: ORDERS }, (_, i) => ({ petId: i + 1, quantity: 1 })));
}, 60_000);

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  server.logs.splice(0);
});

afterAll(() => server?.close());

const listRequest = () =>
  `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;

async function connection(): Promise<Socket> {
  const socket = await openSocket(server.baseUrl);
  sockets.push(socket);
  return socket;
}

const serverPort = () => Number(new URL(server.baseUrl).port);

/** The server's end of the connection of `socket`, as long as the kernel has it. */
const serverEndOf = (socket: Socket) =>
  connectionEnds(socket.localPort as number, serverPort()).find(({ localPort }) => localPort === serverPort());

/** The server's warnings that it closed an idle connection, with the time it logged each. */
const closings = () =>
  server.logs
    .filter((line) => line.includes('for the idle timeout: it is closed'))
    .map((line) => JSON.parse(line) as { time: number });

async function until(condition: () => boolean, what: string): Promise<void> {
  // Not a bound on the behaviour: only how long to wait before calling it never.
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never saw that ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a connection with an answer that is not streamed', () => {
  it('is closed once nothing has moved on it for the idle timeout, when its client stopped reading', async () => {
    const socket = await connection();
    socket.pause();
    const sentAt = Date.now();
    socket.write(listRequest());
    // The answer fills both ends' buffers: the server's end holds bytes the client has not taken.
    await until(() => (serverEndOf(socket)?.sendQueue ?? 0) > 0, 'the server is left holding the answer');

    await until(() => closings().length === 1, 'the server closed the connection');
    // The server's own clock: never before the idle timeout (a busy machine only makes it later).
    expect((closings()[0] as { time: number }).time - sentAt).toBeGreaterThanOrEqual(IDLE_MS);
    await until(() => serverEndOf(socket)?.state !== 'ESTABLISHED', "the server's end is closed");
    // The client reads what reached it, then the end: the answer cut short of its Content-Length.
    const ended = readUntilClosed(socket);
    socket.resume();
    const { text } = await ended;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body.length).toBeLessThan(Number(/content-length: (\d+)/i.exec(head)?.[1]));
  }, 60_000);

  it('is never closed while its client reads the answer, however long that takes', async () => {
    const socket = await connection();
    const ended = readUntilClosed(socket);
    // 4 MB/s: the answer takes longer than the idle timeout, yet the socket moves every few ms.
    readAtRate(socket, 4_000);
    const startedAt = Date.now();
    socket.write(listRequest());

    const { text, error } = await ended;
    expect(error).toBeUndefined();
    expect(Date.now() - startedAt).toBeGreaterThan(IDLE_MS);
    const [answer] = parseAnswers(text);
    expect(answer?.status).toBe(200);
    expect(answer?.headers.get('content-length')).not.toBeNull();
    expect(JSON.parse(answer?.bodyText ?? '')).toHaveLength(ORDERS);
    expect(closings()).toEqual([]);
  }, 90_000);
});
