// Opt-in CORS (CORS_ORIGINS): preflights from listed origins answered per the Fetch standard, answers to
// them readable with the headers a client needs, and nothing for any other origin. Proved from pages in
// Chromium on other origins, and header by header over plain HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_STEP_TIMEOUT, BROWSER_TEST_TIMEOUT, launchChromium } from '../support/browser.js';
import { rawRequest } from '../support/http.js';
import { spawnServer } from '../support/processes.js';
import { createKey, startServer, type TestServer } from '../support/server.js';

const LISTED = 'https://app.example';
const UNLISTED = 'https://elsewhere.example';

const PREFLIGHT_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
  'access-control-allow-credentials',
];

function corsHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('with CORS_ORIGINS, over HTTP', () => {
  let server: TestServer;
  let key: string;
  beforeEach(async () => {
    server = await startServer({ corsOrigins: [LISTED, 'http://127.0.0.1:5173'] });
    ({ key } = await createKey(server.store));
  });
  afterEach(() => server.close());

  const preflight = (origin: string, path = '/v1/store/orders', method = 'GET') =>
    rawRequest(`${server.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key,if-none-match',
      },
    });

  it('answers a preflight from a listed origin with 204 and what it may send', async () => {
    const response = await preflight(LISTED, '/v1/messages', 'POST');
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(corsHeaders(response.headers)).toEqual({
      'access-control-allow-origin': LISTED,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id, traceparent, tracestate',
      'access-control-max-age': '7200',
      'access-control-expose-headers': expect.any(String),
    });
    expect(response.headers.get('vary')).toBe('Origin');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers a preflight from any other origin as without CORS: 405 with Allow, no CORS header', async () => {
    for (const origin of [UNLISTED, 'https://app.example.evil', 'null']) {
      const response = await preflight(origin);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(corsHeaders(response.headers)).toEqual({});
    }
  });

  it('answers an OPTIONS that is no preflight as before: 405 with Allow', async () => {
    const response = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
      method: 'OPTIONS',
      headers: { Origin: LISTED },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    // Still an answer to a listed origin, so the page can read the refusal.
    expect(response.headers.get('access-control-allow-origin')).toBe(LISTED);
  });

  it('lets a listed origin read answers, errors included, and the headers a client needs', async () => {
    const ok = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
      headers: { Origin: LISTED, Authorization: `Bearer ${key}` },
    });
    expect(ok.status).toBe(200);
    expect(corsHeaders(ok.headers)).toEqual({
      'access-control-allow-origin': LISTED,
      'access-control-expose-headers':
        'ETag, X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed, Deprecation, ' +
        'Sunset, Link, WWW-Authenticate, Accept-Encoding, Allow',
    });
    expect(ok.headers.get('vary')).toBe('Origin');
    const refused = await rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: { Origin: LISTED } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(LISTED);
  });

  it('gives any other origin, and a request without Origin, no CORS header, but Vary: Origin', async () => {
    for (const headers of [{ Origin: UNLISTED }, {}]) {
      const response = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
        headers: { ...headers, Authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(corsHeaders(response.headers)).toEqual({});
      expect(response.headers.get('vary')).toBe('Origin');
    }
  });

  it('keeps the Vary an answer had, adding Origin to it', async () => {
    const page = await (await fetch(`${server.baseUrl}/docs`)).text();
    const asset = /src="(\/docs\/[^"]+)"/.exec(page)?.[1] as string;
    const response = await fetch(`${server.baseUrl}${asset}`, { headers: { Origin: LISTED } });
    expect(response.headers.get('vary')).toBe('Accept-Encoding, Origin');
  });
});

describe('without CORS_ORIGINS', () => {
  it('answers every OPTIONS with 405 and Allow, and sends no CORS header', async () => {
    const server = await startServer();
    try {
      const response = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
        method: 'OPTIONS',
        headers: { Origin: LISTED, 'Access-Control-Request-Method': 'GET' },
      });
      expect(response.status).toBe(405);
      expect(corsHeaders(response.headers)).toEqual({});
      expect(response.headers.get('vary')).toBeNull();
      for (const name of PREFLIGHT_HEADERS) expect(response.headers.get(name)).toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe('the server process', () => {
  it('reads CORS_ORIGINS', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'store-orders-cors-'));
    const server = await spawnServer({ DATABASE_URL: join(folder, 'store.db'), CORS_ORIGINS: `${UNLISTED}, ${LISTED}` });
    try {
      const response = await fetch(`${server.baseUrl}/v1/store/orders`, {
        method: 'OPTIONS',
        headers: { Origin: LISTED, 'Access-Control-Request-Method': 'GET' },
      });
      expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([204, LISTED]);
    } finally {
      server.child.kill('SIGTERM');
      await server.finished;
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses a CORS_ORIGINS entry that is no origin at start, exit 1', async () => {
    const refused = spawnServer({ CORS_ORIGINS: 'https://app.example/app' }, { init: false });
    await expect(refused).rejects.toThrow(/exited with 1[^]*bad configuration: CORS_ORIGINS must be/);
  });
});

/** A page of its own origin: a second tiny server on another port. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>client</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Fetched {
  status?: number;
  etag?: string | null;
  replayed?: string | null;
  body?: unknown;
  error?: string;
}

describe('with CORS_ORIGINS, from a page in Chromium on another origin', () => {
  let browser: Browser;
  let listed: { origin: string; server: Server };
  let unlisted: { origin: string; server: Server };
  let api: TestServer;
  let key: string;
  beforeAll(async () => {
    [browser, listed, unlisted] = await Promise.all([launchChromium(), pageServer(), pageServer()]);
    api = await startServer({ corsOrigins: [listed.origin] });
    ({ key } = await createKey(api.store));
  }, BROWSER_TEST_TIMEOUT);
  afterAll(async () => {
    await Promise.all([browser?.close(), api?.close()]);
    listed?.server.close();
    unlisted?.server.close();
  });

  /** fetch() run by a page served from `origin`, with the key in Authorization (so with a preflight). */
  async function fetchFrom(origin: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const context = await browser.newContext();
    context.setDefaultTimeout(BROWSER_STEP_TIMEOUT);
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ url, init }): Promise<Fetched> => {
          try {
            const response = await fetch(url, init);
            const text = await response.text();
            return {
              status: response.status,
              etag: response.headers.get('ETag'),
              replayed: response.headers.get('Idempotent-Replayed'),
              body: text === '' ? undefined : (JSON.parse(text) as unknown),
            };
          } catch (error) {
            return { error: `${(error as Error).name}: ${(error as Error).message}` };
          }
        },
        { url: `${api.baseUrl}${path}`, init: { ...init, headers: { Authorization: `Bearer ${key}`, ...init.headers } } },
      );
    } finally {
      await context.close();
    }
  }

  it(
    'lets a listed origin read the orders and their ETag, and send a message with an Idempotency-Key',
    async () => {
      const order = await api.store.orders.addOrder({ petId: 7, quantity: 2 });
      const listedOrders = await fetchFrom(listed.origin, '/v1/store/orders');
      expect(listedOrders).toEqual({
        status: 200,
        etag: expect.stringMatching(/^"[A-Za-z0-9_-]+"$/),
        replayed: null,
        body: [expect.objectContaining({ id: order.id, petId: 7 })],
      });
      const notModified = await fetchFrom(listed.origin, '/v1/store/orders', {
        headers: { 'If-None-Match': listedOrders.etag as string },
      });
      expect(notModified.status).toBe(304);

      const send = () =>
        fetchFrom(listed.origin, '/v1/messages', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'browser-1' },
          body: JSON.stringify({ message: 'from a page' }),
        });
      expect(await send()).toMatchObject({ status: 202, replayed: null, body: { message: 'from a page' } });
      expect(await send()).toMatchObject({ status: 202, replayed: 'true' });
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'refuses an unlisted origin: its fetch() fails with a TypeError',
    async () => {
      expect(await fetchFrom(unlisted.origin, '/v1/store/orders')).toEqual({
        error: expect.stringMatching(/^TypeError: /),
      });
    },
    BROWSER_TEST_TIMEOUT,
  );
});
