import { describe, expect, it } from 'vitest';
import { ATTEMPT_OUTCOMES } from '../../src/delivery/endpoint.js';
import { DROP_REASONS } from '../../src/telemetry/spanQueue.js';
import { ENDPOINT_STATUSES, MESSAGE_STATUSES, ORDER_STATUSES, WEBHOOK_EVENT_TYPES } from '../../src/store/store.js';
import { displayPrefix, keyDigest } from '../../src/keys.js';
import { CheckedClient } from '../support/everyAnswer.js';
import { apiClient, rawRequest } from '../support/http.js';
import { allSamples, scrape, valueOf } from '../support/metrics.js';
import { ExpositionError, parsePrometheusText } from '../support/prometheusText.js';
import { startServer, useServer } from '../support/server.js';

const t = useServer();
const metricsUrl = () => `${t.server.baseUrl}/metrics`;
const api = () => apiClient(t.server.baseUrl, t.key);
const REQUESTS = 'store_orders_http_requests_total';
const DURATION_COUNT = 'store_orders_http_request_duration_seconds_count';
const OPERATIONS = ['listOrders', 'cancelOrder', 'sendMessage', 'getMessage', 'getPetById', 'none'];

describe('GET /metrics', () => {
  it('serves Prometheus text that a strict parser reads, with the default process metrics', async () => {
    const families = await scrape(metricsUrl());
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(families.get(REQUESTS)?.type).toBe('counter');
    expect(families.get('store_orders_http_request_duration_seconds')?.type).toBe('histogram');
    expect(families.get('store_orders_store_call_duration_seconds')?.type).toBe('histogram');
  });

  it('names no version of Node, V8 or any package: it is open by default, and no answer fingerprints the stack', async () => {
    const response = await fetch(metricsUrl());
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('nodejs_version_info');
    expect(text).not.toMatch(/version/i);
    for (const version of [process.version, process.versions.node, process.versions.v8, process.versions.uv]) {
      expect(text).not.toContain(version);
    }
  });

  it('counts requests and their durations by API version, operationId and status', async () => {
    const before = await scrape(metricsUrl());
    await api().GET('/store/orders');
    await api().GET('/store/orders');
    await api().DELETE('/store/orders/{orderId}', { params: { path: { orderId: 12345 } } });
    await apiClient(t.server.baseUrl).GET('/store/orders');
    const v2 = { headers: { Authorization: `Bearer ${t.key}` } };
    await rawRequest(`${t.server.baseUrl}/v2/store/orders?limit=5`, v2);
    await rawRequest(`${t.server.baseUrl}/v2/store/orders/12345`, { ...v2, method: 'DELETE' });
    await rawRequest(`${t.server.baseUrl}/v2/store/orders?limit=0`, v2);
    await rawRequest(`${t.server.baseUrl}/healthz`);
    await rawRequest(`${t.server.baseUrl}/v1/no/such/path`);
    await rawRequest(`${t.server.baseUrl}/v2/no/such/path`);
    const after = await scrape(metricsUrl());

    const increase = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    for (const name of [REQUESTS, DURATION_COUNT]) {
      expect(increase(name, { api: 'v1', operation: 'listOrders', status: '200' }), name).toBe(2);
      expect(increase(name, { api: 'v1', operation: 'cancelOrder', status: '404' }), name).toBe(1);
      expect(increase(name, { api: 'v1', operation: 'listOrders', status: '401' }), name).toBe(1);
      expect(increase(name, { api: 'v2', operation: 'listOrders', status: '200' }), name).toBe(1);
      expect(increase(name, { api: 'v2', operation: 'cancelOrder', status: '404' }), name).toBe(1);
      expect(increase(name, { api: 'v2', operation: 'listOrders', status: '400' }), name).toBe(1);
      expect(increase(name, { api: 'none', operation: 'none', status: '404' }), name).toBe(2);
      // /healthz, and the first scrape itself.
      expect(increase(name, { api: 'none', operation: 'none', status: '200' }), name).toBeGreaterThanOrEqual(1);
    }
  });

  it('times the store calls by method name, writes until their commit', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 1, quantity: 1 });
    await api().GET('/store/orders');
    await api().DELETE('/store/orders/{orderId}', { params: { path: { orderId: order.id } } });
    await api().POST('/messages', { body: { message: 'hello' } });
    await scrape(metricsUrl());
    const families = await scrape(metricsUrl());
    const calls = (method: string) =>
      valueOf(families, 'store_orders_store_call_duration_seconds_count', { method });
    expect(calls('listOrders')).toBe(1);
    expect(calls('cancelOrder')).toBe(1);
    expect(calls('enqueueMessage')).toBe(1);
    // The key is looked up for its first request only; the operations after it check it themselves.
    expect(calls('findActiveKey')).toBe(1);
    // The gauges' reads are store calls too: those of one scrape show in the next.
    expect(calls('countOrdersByStatus')).toBe(1);
    expect(calls('countQueuedMessages')).toBe(1);
    expect(
      valueOf(families, 'store_orders_store_call_duration_seconds_sum', { method: 'cancelOrder' }),
    ).toBeGreaterThan(0);
  });

  it('reports the orders by state and the queue depth as the store holds them at scrape time', async () => {
    const [first, second] = [
      await t.server.store.orders.addOrder({ petId: 1, quantity: 1 }),
      await t.server.store.orders.addOrder({ petId: 2, quantity: 1 }),
    ];
    await t.server.store.orders.importOrders([{ petId: 3 }, { petId: 4, status: 'shipped' }, { petId: 5 }]);
    await t.server.store.orders.shipOrder(second.id);
    await api().DELETE('/store/orders/{orderId}', { params: { path: { orderId: first.id } } });
    for (const message of ['one', 'two', 'three']) await api().POST('/messages', { body: { message } });

    let families = await scrape(metricsUrl());
    const stored = await t.server.store.orders.listAllOrders();
    for (const state of ORDER_STATUSES) {
      const expected = stored.filter((order) => order.status === state).length;
      expect(valueOf(families, 'store_orders_orders', { state }), state).toBe(expected);
    }
    expect(valueOf(families, 'store_orders_orders', { state: 'pending' })).toBe(2);
    expect(valueOf(families, 'store_orders_message_queue_depth')).toBe(
      (await t.server.store.messages.listMessages()).filter((message) => message.status === 'queued').length,
    );
    expect(valueOf(families, 'store_orders_message_queue_depth')).toBe(3);

    await api().POST('/messages', { body: { message: 'four' } });
    await t.server.store.orders.addOrder({ petId: 6 });
    families = await scrape(metricsUrl());
    expect(valueOf(families, 'store_orders_message_queue_depth')).toBe(4);
    expect(valueOf(families, 'store_orders_orders', { state: 'pending' })).toBe(3);
  });

  it('counts calls to deprecated operations with or without a key, from 0', async () => {
    const before = await scrape(metricsUrl());
    expect(before.get('store_orders_deprecated_calls_total')?.samples).toEqual([
      { name: 'store_orders_deprecated_calls_total', labels: { operation: 'getPetById' }, value: 0 },
    ]);
    const pet = await t.server.store.pets.addPet('Rex');
    await api().GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    await api().GET('/pets/{petId}', { params: { path: { petId: 999 } } });
    await apiClient(t.server.baseUrl).GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    await api().GET('/store/orders');
    const after = await scrape(metricsUrl());
    expect(valueOf(after, 'store_orders_deprecated_calls_total', { operation: 'getPetById' })).toBe(3);
  });

  it('puts no key, order id, pet id or path in any label; its own labels take bounded values', async () => {
    const order = await t.server.store.orders.addOrder({ petId: 424242, quantity: 1 });
    await api().DELETE('/store/orders/{orderId}', { params: { path: { orderId: order.id } } });
    await api().DELETE('/store/orders/{orderId}', { params: { path: { orderId: 987654321 } } });
    await api().GET('/pets/{petId}', { params: { path: { petId: 55555 } } });
    await rawRequest(`${t.server.baseUrl}/v1/store/orders/31337/`, {
      headers: { Authorization: `Bearer ${t.key}` },
    });
    const families = await scrape(metricsUrl());

    const secrets = [
      t.key,
      displayPrefix(t.key),
      keyDigest(t.key).toString('hex'),
      '987654321',
      '55555',
      '31337',
    ];
    for (const sample of allSamples(families)) {
      for (const value of Object.values(sample.labels)) {
        for (const secret of secrets) expect(value, sample.name).not.toContain(secret);
        expect(value, sample.name).not.toContain('/');
      }
      if (!sample.family.name.startsWith('store_orders_')) continue;
      for (const [label, value] of Object.entries(sample.labels)) {
        if (label === 'operation') expect(OPERATIONS).toContain(value);
        else if (label === 'api') expect(['v1', 'v2', 'none']).toContain(value);
        else if (label === 'status') expect(value).toMatch(/^[1-5][0-9]{2}$/);
        else if (label === 'state' && sample.family.name === 'store_orders_messages') expect(MESSAGE_STATUSES).toContain(value);
        else if (label === 'state' && sample.family.name === 'store_orders_webhook_endpoints') expect(ENDPOINT_STATUSES).toContain(value);
        else if (label === 'event_type') expect(WEBHOOK_EVENT_TYPES).toContain(value);
        else if (label === 'state') expect(ORDER_STATUSES).toContain(value);
        else if (label === 'outcome') expect(ATTEMPT_OUTCOMES).toContain(value);
        else if (label === 'method') expect(value).toMatch(/^[a-z][A-Za-z]+$/);
        else if (label === 'reason') expect(DROP_REASONS).toContain(value);
        else expect(label).toBe('le');
      }
    }
    expect(valueOf(families, REQUESTS, { api: 'v1', operation: 'cancelOrder', status: '204' })).toBe(1);
  });

  it('is not part of the /v1 API', async () => {
    const response = await rawRequest(`${t.server.baseUrl}/v1/metrics`, {
      headers: { Authorization: `Bearer ${t.key}` },
    });
    expect(response.status).toBe(404);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-for-tests-0123456789';

  it('answers 401 with the Error body without the token, and the metrics with it', async () => {
    const server = await startServer({ metrics: { token } });
    try {
      const url = `${server.baseUrl}/metrics`;
      for (const authorization of [
        undefined,
        'Bearer wrong-token-0123456789',
        `Basic ${token}`,
        `Bearer ${token}x`,
      ]) {
        const response = await rawRequest(
          url,
          authorization ? { headers: { Authorization: authorization } } : {},
        );
        expect(response.status, authorization).toBe(401);
        expect(response.json).toEqual({
          code: 'unauthorized',
          message: 'The metrics token is required',
          status: 401,
        });
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="store-orders-metrics"');
        expect(response.text).not.toContain('store_orders');
      }
      expect((await scrape(url, token)).has(REQUESTS)).toBe(true);
      const lowerCaseScheme = await rawRequest(url, { headers: { Authorization: `bearer ${token}` } });
      expect(lowerCaseScheme.status).toBe(200);
      // An API key is not the metrics token.
      const withApiKey = await rawRequest(url, { headers: { Authorization: `Bearer ${t.key}` } });
      expect(withApiKey.status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN and two Authorization fields', () => {
  const token = 'metrics-token-for-tests-0123456789';

  it.each([
    ['the token, then a wrong one', [`Bearer ${token}`, 'Bearer wrong-token-0123456789']],
    ['a wrong one, then the token', ['Bearer wrong-token-0123456789', `Bearer ${token}`]],
    ['the token twice', [`Bearer ${token}`, `Bearer ${token}`]],
  ])('answers 401 to %s: a repeated field is never read as one of its values', async (_, fields) => {
    const server = await startServer({ metrics: { token } });
    const client = new CheckedClient(server);
    try {
      const answer = await client.send('metrics', undefined, false, {
        path: '/metrics',
        headers: { Authorization: fields },
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.bodyText)).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(answer.bodyText).not.toContain('store_orders');
    } finally {
      client.close();
      await server.close();
    }
  });
});

describe('the exposition parser these tests use', () => {
  it.each([
    ['a sample line without a value', 'up\n'],
    ['a bad metric name', '1up 1\n'],
    ['a value that is not a number', 'up one\n'],
    ['a label value without quotes', 'up{job=api} 1\n'],
    ['a bad escape in a label value', 'up{job="a\\qb"} 1\n'],
    ['a repeated series', 'up 1\nup 2\n'],
    ['a family split in two', '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x="y"} 2\n'],
    ['a negative counter', '# TYPE c_total counter\nc_total -1\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    [
      'a histogram whose +Inf differs from _count',
      '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n',
    ],
    ['text without a final newline', 'up 1'],
    ['a label name starting with __', 'up{__name__="x"} 1\n'],
    ['a TYPE after the samples', 'up 1\n# TYPE up gauge\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow(ExpositionError);
  });

  it('reads escapes, timestamps and special values', () => {
    const families = parsePrometheusText(
      '# HELP up Is \\\\ it\\nup?\n# TYPE up gauge\nup{job="a\\"b\\\\c\\nd"} +Inf 1700000000000\nup{job="x"} NaN\n',
    );
    expect(families.get('up')).toMatchObject({
      help: 'Is \\ it\nup?',
      type: 'gauge',
      samples: [{ labels: { job: 'a"b\\c\nd' }, value: Number.POSITIVE_INFINITY }, { labels: { job: 'x' } }],
    });
  });
});
