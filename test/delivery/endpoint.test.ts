// One attempt against a real receiver on a loopback port: a signed POST of the body as it is, which a 2xx
// delivers; any other answer, a redirect included (never followed), no answer in time, a refused or dropped
// connection each fail with a reason of a few words; an answer's body is not read past a few kilobytes.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointClient, retryAfterMs } from '../../src/delivery/endpoint.js';
import { parseSecret } from '../../src/delivery/signature.js';
import { VERSION } from '../../src/version.js';
import { freePort } from '../support/processes.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const key = parseSecret(secret, 'MESSAGE_WEBHOOK_SECRET');
const body = JSON.stringify({ id: 'msg_1', message: 'hi', status: 'queued', createdAt: '2026-01-01T00:00:00.000Z', account: 'acme' });

interface Received {
  method: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
const clients: EndpointClient[] = [];

/** A receiver answering each request with `answer`; what it received, in order. */
async function receiver(answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      received.push({ method: request.method, headers: request.headers, body: text });
      answer(request, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?token=abc`);
  return { url, received, server };
}

/** The attempt's span, in the trace of the request that sent the message. */
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function clientFor(url: URL, timeoutMs = 60_000): EndpointClient {
  const client = new EndpointClient({ url, key }, timeoutMs, 4);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('an attempt', () => {
  it('POSTs the body as it is, signed as Standard Webhooks says, in the attempt’s trace, to the URL with its query; a 2xx delivers it', async () => {
    const { url, received } = await receiver((_, response) => response.writeHead(204).end());
    expect(await clientFor(url).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({ delivered: true, outcome: 'delivered', status: 204 });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe(body);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe(`store-orders/${VERSION}`);
    expect(request?.headers['webhook-id']).toBe('msg_1');
    expect(request?.headers.traceparent).toBe(TRACEPARENT);
    const headers = request?.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request?.body as string, headers)).toEqual(JSON.parse(body));
  });

  it('fails on any other answer, with its status and nothing of its body', async () => {
    const { url } = await receiver((_, response) => response.writeHead(500).end('database password is hunter2'));
    const attempt = await clientFor(url).post('msg_1', body, new Date(), TRACEPARENT);
    expect(attempt).toEqual({ delivered: false, outcome: 'http_error', reason: 'the endpoint answered HTTP 500', status: 500 });
  });

  it('follows no redirect: the place it points to receives nothing', async () => {
    const elsewhere = await receiver((_, response) => response.writeHead(204).end());
    const { url } = await receiver((_, response) => response.writeHead(307, { location: elsewhere.url.href }).end());
    expect(await clientFor(url).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({
      delivered: false,
      outcome: 'http_error',
      reason: 'the endpoint answered HTTP 307 (redirects are not followed)',
      status: 307,
    });
    expect(elsewhere.received).toEqual([]);
  });

  it('fails when no answer comes within the time-out, or the connection is refused or dropped', async () => {
    const silent = await receiver(() => {});
    expect(await clientFor(silent.url, 200).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({
      delivered: false,
      outcome: 'timeout',
      reason: 'no answer within 200 ms',
    });
    const closed = new URL(`http://127.0.0.1:${await freePort()}/hooks`);
    expect(await clientFor(closed).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({
      delivered: false,
      outcome: 'connection_error',
      reason: 'connection refused',
    });
    const dropping = await receiver((request) => request.socket.destroy());
    expect(await clientFor(dropping.url).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({
      delivered: false,
      outcome: 'connection_error',
      reason: 'connection closed before an answer',
    });
  });

  it('reads a few kilobytes of an answer that never ends, then lets its connection go: the 2xx still delivers', async () => {
    let closedByTheClient = false;
    const { url } = await receiver((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => response.write('x'.repeat(1024)), 5);
      response.on('close', () => {
        clearInterval(drip);
        closedByTheClient = !response.writableEnded;
      });
    });
    // The time-out is a hang guard here: only the cut-off after a few kilobytes ends this attempt.
    expect(await clientFor(url, 600_000).post('msg_1', body, new Date(), TRACEPARENT)).toEqual({ delivered: true, outcome: 'delivered', status: 200 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedByTheClient).toBe(true);
  });

  it('closes a kept-alive connection left idle, long before the receiver would close it itself', async () => {
    const { url, server } = await receiver((_, response) => response.writeHead(200).end());
    server.keepAliveTimeout = 600_000;
    const closed = new Promise<void>((resolve) => server.on('connection', (socket) => socket.on('close', () => resolve())));
    expect((await clientFor(url).post('msg_1', body, new Date(), TRACEPARENT)).delivered).toBe(true);
    // The receiver keeps it for ten minutes: only the client's idle limit closes it before the test's time-out.
    await closed;
  });

  it('sends the next attempt on the kept-alive connection of the last', async () => {
    const { url, server } = await receiver((_, response) => response.writeHead(200).end('ok'));
    let connections = 0;
    server.on('connection', () => connections++);
    const client = clientFor(url);
    for (let i = 0; i < 3; i++) expect((await client.post(`msg_${i}`, body, new Date(), TRACEPARENT)).delivered).toBe(true);
    expect(connections).toBe(1);
  });
});

describe("an answer's Retry-After", () => {
  it('is read as seconds, or as an HTTP date from the attempt, and passed on with its status', async () => {
    const at = new Date('2026-12-06T10:00:00.000Z');
    expect(retryAfterMs('120', at)).toBe(120_000);
    expect(retryAfterMs('Sun, 06 Dec 2026 10:00:30 GMT', at)).toBe(30_000);
    expect(retryAfterMs('Sun, 06 Dec 2026 09:00:00 GMT', at)).toBe(0);
    expect(retryAfterMs('soon', at)).toBeUndefined();
    const { url } = await receiver((_, response) => response.writeHead(503, { 'retry-after': '7' }).end());
    expect(await clientFor(url).post('msg_1', body, new Date(), TRACEPARENT)).toMatchObject({ status: 503, retryAfterMs: 7_000 });
  });
});
