// The generated-request suite's client (test/support/fuzz/rawHttp.ts) keeps connections alive between
// requests. A connection the server has stopped waiting on must not carry the next request: the server
// closes it with the request unread, and a valid request fails with `read ECONNRESET`.
import { afterEach, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { closeConnections, send } from '../support/fuzz/rawHttp.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

/** Holds this process's event loop, as a stretch of synchronous work on a busy machine does. */
const holdEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A second, the shortest wait a server can announce (`Keep-Alive: timeout=1`), rather than the default's 5. */
const KEEP_ALIVE_TIMEOUT_MS = 1_000;

let server: TestServer | undefined;
afterEach(async () => {
  closeConnections();
  await server?.close();
});

it('sends a valid request after the event loop was held past the server keeping the connection open', async () => {
  server = await startServer({ http: { ...DEFAULT_HTTP_LIMITS, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS } });
  const { key } = await createKey(server.store);
  const message = {
    method: 'POST',
    path: '/v1/messages',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: new TextEncoder().encode('{"message":"hello"}'),
  };
  expect((await send(server.baseUrl, message)).status).toBe(202);
  // Node's server closes an idle kept-alive connection one second after the timeout it announces. The
  // server runs in this process, so its timer is due but has not run when the next request is written,
  // exactly as when building the next operation's generators takes that long on a loaded machine.
  holdEventLoop(KEEP_ALIVE_TIMEOUT_MS + 1_500);
  expect((await send(server.baseUrl, message)).status).toBe(202);
});
