// The line each answered request writes at info, read from a real server process's log: the route as the
// contract writes it, the operation and API version, the status and Error code, the account and key id,
// how long it took and the request id; never the key, the raw URL or an id from the path. At warn, none.
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { RequestLines } from '../../src/telemetry/requestLine.js';
import { rawRequest } from '../support/http.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilLogged } from '../support/processes.js';
import { useScratchDatabase } from '../support/storeBackends.js';

const scratch = useScratchDatabase('store-orders-request-line-');

type LogLine = Record<string, unknown> & { msg: string };

const jsonLines = (stdout: string): LogLine[] =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

async function start(env: NodeJS.ProcessEnv): Promise<{ server: ServerProcess; key: string }> {
  await runCliInProcess(['init'], scratch.env);
  const created = await runCliInProcess(['keys', 'create', '--account', 'acme'], scratch.env);
  const key = created.stdout.trim().split('\n').at(-1) as string;
  const server = await spawnServer({ ...scratch.env, LOG_FORMAT: 'json', ...env }, { init: false });
  scratch.servers.push(server);
  return { server, key };
}

/** Sends a request with `id` as its X-Request-Id; resolves with its status once its line is logged. */
async function send(server: ServerProcess, id: string, path: string, init: RequestInit = {}): Promise<number> {
  const { status } = await rawRequest(`${server.baseUrl}${path}`, {
    ...init,
    headers: { ...init.headers, 'X-Request-Id': id },
  });
  await untilLogged(server, new RegExp(`"reqId":"${id}".*"msg":"request completed"`));
  return status;
}

const completed = (server: ServerProcess, id: string) =>
  jsonLines(server.output.stdout).filter((line) => line.reqId === id && line.msg === 'request completed');

/** The trace of a client's `traceparent`. */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Every 8-character piece of a key: none may be logged. */
const piecesOf = (key: string) => Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));

describe('the request line, at LOG_LEVEL=info', () => {
  it('names the route, operation, version, status, Error code, account and key id of each answered request', async () => {
    // Windows are fixed on the clock: the longest one (2001-09-09 to 2033-05-18) cannot end between two requests.
    const { server, key } = await start({ RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '999999999' });
    const auth = { Authorization: `Bearer ${key}` };
    const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
    expect(await send(server, 'ok-1', '/v1/store/orders', { headers: { ...auth, traceparent } })).toBe(200);
    expect(await send(server, 'no-key', '/v1/store/orders')).toBe(401);
    expect(await send(server, 'gone-order', '/v1/store/orders/987654', { method: 'DELETE', headers: auth })).toBe(404);
    // An invalid traceparent (upper case) is ignored, never refused: the request begins a trace of its own.
    const invalid = traceparent.toUpperCase();
    expect(await send(server, 'v2-list', '/v2/store/orders?limit=5', { headers: { ...auth, traceparent: invalid } })).toBe(200);
    expect(await send(server, 'over-quota', '/v1/store/orders', { headers: auth })).toBe(429);
    expect(await send(server, 'no-path', '/v1/no/such/path/4242')).toBe(404);

    const [ok] = completed(server, 'ok-1');
    expect(ok).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: server.child.pid,
      hostname: expect.any(String),
      reqId: 'ok-1',
      traceId: TRACE_ID,
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      method: 'GET',
      route: '/v1/store/orders',
      apiVersion: 'v1',
      operationId: 'listOrders',
      res: { statusCode: 200 },
      account: 'acme',
      keyId: 1,
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    const [v2] = completed(server, 'v2-list');
    expect(v2?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(v2?.traceId).not.toBe(TRACE_ID);
    expect(completed(server, 'no-key')).toEqual([
      expect.objectContaining({ route: '/v1/store/orders', res: { statusCode: 401 }, code: 'unauthorized' }),
    ]);
    expect(completed(server, 'no-key')[0]).not.toHaveProperty('account');
    expect(completed(server, 'no-key')[0]).not.toHaveProperty('keyId');
    expect(completed(server, 'gone-order')).toEqual([
      expect.objectContaining({
        method: 'DELETE',
        route: '/v1/store/orders/{orderId}',
        operationId: 'cancelOrder',
        res: { statusCode: 404 },
        code: 'order_not_found',
        account: 'acme',
        keyId: 1,
      }),
    ]);
    expect(completed(server, 'v2-list')).toEqual([
      expect.objectContaining({ route: '/v2/store/orders', apiVersion: 'v2', operationId: 'listOrders', account: 'acme' }),
    ]);
    expect(completed(server, 'v2-list')[0]).not.toHaveProperty('code');
    expect(completed(server, 'over-quota')).toEqual([
      expect.objectContaining({ res: { statusCode: 429 }, code: 'too_many_requests', account: 'acme', keyId: 1 }),
    ]);
    // Outside every operation: the route the request matched, and no operation.
    const [unknown] = completed(server, 'no-path');
    expect(unknown).toMatchObject({ route: '/v1/*', res: { statusCode: 404 }, code: 'not_found' });
    expect(unknown).not.toHaveProperty('operationId');

    const requestLines = jsonLines(server.output.stdout).filter((line) => line.msg === 'request completed');
    expect(requestLines).toHaveLength(6);
    for (const line of requestLines) {
      expect(line.responseTime).toBeGreaterThan(0);
      // An id from the path shows only in the `incoming request` line's redacted URL. Only the text fields
      // are read: a timestamp, pid or duration may hold those digits by chance.
      const text = Object.values(line).filter((value) => typeof value === 'string');
      expect(text.join(' ')).not.toMatch(/987654|4242/);
    }
    for (const piece of piecesOf(key)) expect(server.output.stdout).not.toContain(piece);
  });
});

describe('the request line, at LOG_LEVEL=warn', () => {
  it('is not written: the log has no line per request', async () => {
    const { server, key } = await start({ LOG_LEVEL: 'warn' });
    const auth = { Authorization: `Bearer ${key}` };
    const statuses = [
      (await rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: auth })).status,
      (await rawRequest(`${server.baseUrl}/v1/store/orders`)).status,
      (await rawRequest(`${server.baseUrl}/v1/store/orders/5`, { method: 'DELETE', headers: auth })).status,
    ];
    expect(statuses).toEqual([200, 401, 404]);
    server.child.kill('SIGTERM');
    const finished = await server.finished;
    expect(finished.code).toBe(0);
    // The listening line alone, written at info whatever the level.
    expect(jsonLines(finished.stdout).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^store-orders \S+ listening: /),
    ]);
  });

  it('asks the log once whether it writes, not on every request', async () => {
    const lines = new RequestLines();
    const app = Fastify({ logger: { level: 'warn' }, logController: lines });
    app.get('/ping', () => 'pong');
    const asked = vi.spyOn(app.log as unknown as { isLevelEnabled(level: string): boolean }, 'isLevelEnabled');
    try {
      for (let i = 0; i < 5; i += 1) expect((await app.inject('/ping')).statusCode).toBe(200);
      // Once for each level a request may write at, at the first request.
      expect(asked.mock.calls).toEqual([['debug'], ['info'], ['error']]);
    } finally {
      await app.close();
    }
  });
});
