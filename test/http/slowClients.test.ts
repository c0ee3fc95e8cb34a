// Slow, idle and greedy clients: late headers get 408 and lose their connection, idle kept-alive sockets
// are closed, at the connection limit a newcomer takes the place of the connection idle longest (and is
// refused only when every connection has a request in flight), and 200 slowloris connections do not keep
// a normal client waiting. Timers are checked from the server's side (its log's own time) or with the
// client's clock started before the server's, so that a busy machine only makes them later.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../../src/config.js';
import { rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server.close();
});

const limits = (changes: Partial<HttpLimits>): HttpLimits => ({ ...DEFAULT_HTTP_LIMITS, ...changes });

function open(): Promise<Socket> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket)).on('error', reject);
    sockets.push(socket);
  });
}

/** Everything the server writes until it closes the connection, and how long after `started` that was. */
function untilClosed(socket: Socket, started = Date.now()): Promise<{ text: string; afterMs: number }> {
  let text = '';
  socket.on('data', (chunk) => {
    text += String(chunk);
  });
  return new Promise((resolve) => socket.on('close', () => resolve({ text, afterMs: Date.now() - started })));
}

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

/** Writes `text` and resolves with the one answer that comes back (it has a Content-Length). */
function answerTo(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += String(chunk);
      const end = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received)?.[1];
      if (end !== -1 && length !== undefined && received.length >= end + 4 + Number(length)) {
        socket.off('data', onData);
        resolve(received);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(received)}`)));
    socket.write(text);
  });
}

/** Resolves once the server has read the headers of `count` more requests. */
function requestsReceived(count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onRequest = () => {
      if (++seen < count) return;
      server.app.server.off('request', onRequest);
      resolve();
    };
    server.app.server.on('request', onRequest);
  });
}

describe('slow and idle clients', () => {
  it('answers headers that do not arrive in time with a 408 Error body, and closes the connection', async () => {
    server = await startServer({ http: limits({ headersTimeoutMs: 500, requestTimeoutMs: 1000 }) });
    // Before the connection opens, so the client's clock starts before the server's.
    const started = Date.now();
    const socket = await open();
    const closed = untilClosed(socket, started);
    socket.write('GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const { text, afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(450);
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({
      code: 'request_timeout',
      message: 'The request did not arrive in time',
      status: 408,
    });
  });

  it('answers a body that stops arriving with 408 once the request timeout runs out', async () => {
    server = await startServer({ http: limits({ headersTimeoutMs: 400, requestTimeoutMs: 800 }) });
    const { key } = await createKey(server.store);
    const socket = await open();
    const closed = untilClosed(socket);
    socket.write(
      `POST /v1/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mess`,
    );
    const { text } = await closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(await server.store.messages.listMessages()).toEqual([]);
  });

  it('closes an idle kept-alive connection after keepAliveTimeout', async () => {
    server = await startServer({ http: limits({ keepAliveTimeoutMs: 300 }) });
    const socket = await open();
    const closed = untilClosed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const { text, afterMs } = await closed;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterMs).toBeGreaterThanOrEqual(250);
  });

  it('at the limit, lets a new connection take the place of the one idle longest', async () => {
    server = await startServer({ http: limits({ maxConnections: 3 }) });
    const silent = await open(); // has sent nothing
    const keptAlive = await open();
    expect(await answerTo(keptAlive, HEALTHZ)).toMatch(/^HTTP\/1\.1 200 /);
    const slow = await open();
    slow.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'); // headers not finished
    const silentClosed = untilClosed(silent);

    const newcomer = await open();
    expect(await answerTo(newcomer, HEALTHZ)).toMatch(/^HTTP\/1\.1 200 /);
    expect((await silentClosed).text).toBe('');
    // The others are still served.
    expect(await answerTo(keptAlive, HEALTHZ)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await answerTo(slow, '\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('never takes the place of a connection with a request in flight: the new one is closed then', async () => {
    server = await startServer({ http: limits({ maxConnections: 2 }) });
    const { key } = await createKey(server.store);
    const body = '{"message":"hi"}';
    const head = `POST /v1/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const bothReceived = requestsReceived(2);
    const busy = [await open(), await open()];
    for (const socket of busy) socket.write(`${head}${body.slice(0, 5)}`); // the body is not finished
    await bothReceived;

    const refused = await open();
    expect((await untilClosed(refused)).text).toBe('');
    expect(await answerTo(busy[0] as Socket, body.slice(5))).toMatch(/^HTTP\/1\.1 202 /);
    // Its answer sent, the first is idle, and the next newcomer takes its place.
    const firstClosed = untilClosed(busy[0] as Socket);
    expect(await answerTo(await open(), HEALTHZ)).toMatch(/^HTTP\/1\.1 200 /);
    await firstClosed;
    expect(await answerTo(busy[1] as Socket, body.slice(5))).toMatch(/^HTTP\/1\.1 202 /);
    expect(await server.store.messages.listMessages()).toHaveLength(2);
  });

  it('with the default limit taken by 1,000 idle connections without a key, still answers new clients', async () => {
    server = await startServer();
    expect(DEFAULT_HTTP_LIMITS.maxConnections).toBe(1_000);
    const held = await Promise.all(Array.from({ length: 1_000 }, () => open()));
    // Half send nothing, half start a request and never finish its headers.
    for (const socket of held.slice(500)) socket.write('GET /v1/store/orders HTTP/1.1\r\nHost: x\r\n');
    for (let i = 0; i < 20; i++) {
      expect(await answerTo(await open(), HEALTHZ), `client ${i}`).toMatch(/^HTTP\/1\.1 200 /);
    }
    expect((await rawRequest(`${server.baseUrl}/healthz`)).status).toBe(200);
  });

  it('keeps answering a normal client while 200 slowloris connections trickle headers, and cuts each off with 408 at the default headers timeout', async () => {
    server = await startServer();
    const { key } = await createKey(server.store);
    await server.store.orders.importOrders(Array.from({ length: 100 }, (_, i) => ({ petId: i + 1, quantity: 1 })));
    const listOrders = async () => {
      const answer = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(answer.status).toBe(200);
    };

    // Before the connections open, so the client's clock starts before any of the server's timers.
    const started = Date.now();
    const slowloris = await Promise.all(Array.from({ length: 200 }, () => open()));
    const closed = slowloris.map((socket) => untilClosed(socket, started));
    let gone = 0;
    for (const close of closed) void close.then(() => gone++);
    const request = 'GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(100);
    let sent = 0;
    const trickle = setInterval(() => {
      for (const socket of slowloris) if (!socket.destroyed) socket.write(request[sent % request.length] as string);
      sent++;
    }, 1000);
    try {
      // Through the whole attack, with the default headers timeout: until the server has cut every one off.
      let answeredWhileAllOpen = 0;
      while (gone < slowloris.length) {
        await listOrders();
        if (gone === 0) answeredWhileAllOpen++;
      }
      // A server that waited on the slowloris connections would answer nobody before cutting them off; each
      // request may take half a second here, far more than a busy machine needs.
      expect(answeredWhileAllOpen).toBeGreaterThanOrEqual(20);
      const { headersTimeoutMs, requestTimeoutMs } = DEFAULT_HTTP_LIMITS;
      // Less a few ms for two clocks' rounding.
      const notBefore = headersTimeoutMs - 10;
      for (const { text, afterMs } of await Promise.all(closed)) {
        expect(text).toMatch(/^HTTP\/1\.1 408 /);
        expect(afterMs).toBeGreaterThanOrEqual(notBefore);
      }
      // The server's own account: each was refused by its timer, the headers timeout and not the later
      // request timeout (both answer 408), whenever a busy machine lets the client see it.
      const refused = server.logs
        .map((line) => JSON.parse(line) as { msg: string; code?: string; time: number })
        .filter(({ msg, code }) => msg === 'malformed request refused' && code === 'ERR_HTTP_REQUEST_TIMEOUT');
      expect(refused).toHaveLength(200);
      for (const { time } of refused) {
        expect(time - started).toBeGreaterThanOrEqual(notBefore);
        expect(time - started).toBeLessThan(requestTimeoutMs);
      }
    } finally {
      clearInterval(trickle);
    }
  }, 60_000);
});
