import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { apiClient, rawRequest } from '../support/http.js';
import { scrape, valueOf } from '../support/metrics.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilLogged } from '../support/processes.js';
import { exchange } from '../support/rawSocket.js';
import { useScratchDatabase } from '../support/storeBackends.js';
import { startServer } from '../support/server.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

const scratch = useScratchDatabase('store-orders-metrics-');

async function start(extra: NodeJS.ProcessEnv): Promise<ServerProcess & { metricsUrl: string }> {
  const server = await spawnServer({ ...scratch.env, ...extra });
  scratch.servers.push(server);
  // The metrics listener starts right after the API's; the listening line then says where each is.
  const listening = / metrics (http:\/\/127\.0\.0\.1:\d+\/metrics)"/;
  await untilLogged(server, listening);
  const match = listening.exec(server.output.stdout);
  if (!match?.[1]) throw new Error(`no metrics listener:\n${server.output.stdout}${server.output.stderr}`);
  return { ...server, metricsUrl: match[1] };
}

describe('the server process with METRICS_PORT and METRICS_TOKEN', () => {
  it('serves /metrics only on the metrics port, behind the token, counting the API port requests', async () => {
    await runCliInProcess(['init'], scratch.env);
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], scratch.env)).stdout.trim().split('\n').at(-1);
    const server = await start({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN });
    expect(new URL(server.metricsUrl).port).not.toBe(new URL(server.baseUrl).port);

    const onApiPort = await rawRequest(`${server.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(onApiPort.status).toBe(404);
    expect((await apiClient(server.baseUrl, key).GET('/store/orders')).response.status).toBe(200);

    expect((await rawRequest(server.metricsUrl)).status).toBe(401);
    const families = await scrape(server.metricsUrl, TOKEN);
    expect(
      valueOf(families, 'store_orders_http_requests_total', { api: 'v1', operation: 'listOrders', status: '200' }),
    ).toBe(1);
    expect(valueOf(families, 'store_orders_http_requests_total', { api: 'none', operation: 'none', status: '404' })).toBe(
      1,
    );
    expect(families.has('process_cpu_user_seconds_total')).toBe(true);
    // The metrics listener serves nothing else, and its own scrapes are not API requests.
    expect((await rawRequest(`${server.metricsUrl.replace('/metrics', '')}/v1/store/orders`)).status).toBe(
      404,
    );
    // GET and HEAD only, as on the API port.
    const head = await rawRequest(server.metricsUrl, { method: 'HEAD', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect([head.status, head.text]).toEqual([200, '']);
    const post = await rawRequest(server.metricsUrl, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const again = await scrape(server.metricsUrl, TOKEN);
    expect(valueOf(again, 'store_orders_http_requests_total', { api: 'none', operation: 'none', status: '200' })).toBe(0);

    server.child.kill('SIGTERM');
    expect((await server.finished).code).toBe(0);
  });

  it('serves /metrics on the API port, open, when neither is set', async () => {
    const server = await spawnServer(scratch.env);
    scratch.servers.push(server);
    expect((await scrape(`${server.baseUrl}/metrics`)).has('store_orders_http_requests_total')).toBe(true);
    expect(server.output.stdout).toContain(`, metrics ${server.baseUrl}/metrics"`);
  });

  it('refuses to start, exit 1, when the metrics port is taken', async () => {
    const first = await start({ METRICS_PORT: '0' });
    const taken = new URL(first.metricsUrl).port;
    // The API's listener is up first; the process then stops for want of the metrics one.
    const second = await spawnServer({ ...scratch.env, METRICS_PORT: taken });
    const finished = await second.finished;
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(`cannot listen for metrics on 127.0.0.1:${taken}`);
  });

  it('refuses a bad METRICS_PORT or METRICS_TOKEN at start without printing the token', async () => {
    await expect(spawnServer({ ...scratch.env, METRICS_PORT: 'metrics' })).rejects.toThrow(/METRICS_PORT must be/);
    const refusal = spawnServer({ ...scratch.env, METRICS_TOKEN: 'short secret' });
    await expect(refusal).rejects.toThrow(/exited with 1[^]*METRICS_TOKEN must be/);
    await expect(refusal).rejects.not.toThrow('short secret');
  });
});

describe('the metrics listener of its own, to a malformed request', () => {
  it.each([
    ['a request without Host', 'GET /metrics HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    ['two Host fields', 'GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, 'bad_request'],
    ['a transfer coding other than chunked', 'GET /metrics HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n', 501, 'not_implemented'],
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400, 'bad_request'],
    ['a malformed header line', 'GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, 'bad_request'],
    ['headers over 16 KiB', `GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ])('answers %s with the Error body, as the API port does', async (_what, text, status, code) => {
    const server = await startServer({ metrics: { port: 0 } });
    try {
      const metricsServer = server.app.metricsServer as FastifyInstance;
      const metricsOrigin = await metricsServer.listen({ port: 0, host: '127.0.0.1' });
      const [answer, ...more] = await exchange(metricsOrigin, text);
      expect(more).toEqual([]);
      expect(answer?.status).toBe(status);
      expect(JSON.parse(answer?.bodyText ?? '')).toEqual({ code, message: expect.any(String), status });
      expect(answer?.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      expect(answer?.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      // The API port answers the same text alike.
      const [onApiPort] = await exchange(server.baseUrl, text);
      expect(onApiPort?.bodyText).toBe(answer?.bodyText);
    } finally {
      await server.close();
    }
  });
});
