// OpenTelemetry export (issue 44), to a real OTLP/HTTP receiver on loopback (test/support/otlpReceiver.ts):
// one message's trace, from the client's request through the store to the webhook, from three server
// processes on one PostgreSQL and from a server of two workers on SQLite; and a collector that hangs or
// refuses, which never holds a request: spans are dropped, and counted, past a bounded queue.
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceExportSettings } from '../../src/traceSettings.js';
import { runCliInProcess } from '../support/commandLine.js';
import { scrape, valueOf } from '../support/metrics.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlpReceiver.js';
import { type ServerProcess, spawnServer, untilWorkersListen } from '../support/processes.js';
import { type EventEndpoint, startEventReceiver } from '../support/eventReceiver.js';
import { type Receiver, startReceiver, until } from '../support/receiver.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let cleanUps: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanUp of cleanUps.reverse()) await cleanUp();
  cleanUps = [];
});

/** A client's trace: its own span is the parent of the server's. */
function clientTrace(n: number): { traceId: string; clientSpanId: string; traceparent: string } {
  const traceId = `4bf92f3577b34da6a3ce929d0e0e${String(4000 + n)}`;
  const clientSpanId = `00f067aa0ba9${String(1000 + n)}`;
  return { traceId, clientSpanId, traceparent: `00-${traceId}-${clientSpanId}-01` };
}

/**
 * The spans of one sendMessage's trace as the collector got them: the request's server span (child of the
 * client's), its store call, and one delivery attempt whose span is the webhook's `traceparent`.
 */
function expectMessageTrace(spans: ReceivedSpan[], webhooks: Receiver, n: number, database: string, key: string): void {
  const { traceId, clientSpanId } = clientTrace(n);
  const ofTrace = spans.filter((span) => span.traceId === traceId);
  const request = ofTrace.find(({ kind }) => kind === SERVER);
  expect(request, `the request span of trace ${n}`).toMatchObject({
    parentSpanId: clientSpanId,
    name: 'POST /v2/messages',
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/v2/messages',
      'http.response.status_code': 202,
      'store_orders.operation_id': 'sendMessage',
      'store_orders.api_version': 'v2',
    },
    resource: { 'service.name': 'orders-under-test' },
  });
  const store = ofTrace.find(({ name }) => name === 'enqueueMessage');
  expect(store).toMatchObject({
    kind: CLIENT,
    parentSpanId: request?.spanId,
    attributes: { 'db.system.name': database, 'db.operation.name': 'enqueueMessage' },
  });
  const attempt = ofTrace.find(({ name }) => name === 'POST');
  expect(attempt).toMatchObject({ kind: CLIENT, parentSpanId: request?.spanId, attributes: { 'http.response.status_code': 204 } });
  // The receiver's own work joins the trace under the attempt's span.
  const delivered = webhooks.deliveries.find(({ traceparent }) => traceparent?.includes(traceId));
  expect(delivered?.traceparent).toBe(`00-${traceId}-${attempt?.spanId}-01`);
  // No query's values, no key, no message text in any attribute.
  const exported = JSON.stringify(ofTrace);
  for (const secret of ['Bearer', key, key.slice(0, 12), `traced message ${n}`]) expect(exported).not.toContain(secret);
}

/**
 * With WEBHOOK_TRACE_CONTEXT=true, an account's endpoint gets the cancel's event with a `traceparent` of the
 * cancel's trace, whose span is the event attempt's, a child of the cancel request's span.
 */
async function expectCancelTrace(baseUrl: string, key: string, env: NodeJS.ProcessEnv, endpoint: EventEndpoint, collector: OtlpReceiver) {
  const registered = await fetch(`${baseUrl}/v2/webhook-endpoints`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: endpoint.url, events: ['order.cancelled'] }),
  });
  expect(registered.status).toBe(201);
  // The endpoints' part holds the store's webhooks part: a call of it is a span of the request too.
  await until(() => collector.spans.some((span) => span.name === 'createEndpoint'));
  const registration = collector.spans.find((span) => span.name === 'POST /v2/webhook-endpoints');
  const created = collector.spans.find((span) => span.name === 'createEndpoint');
  expect(created).toMatchObject({ kind: CLIENT, traceId: registration?.traceId, parentSpanId: registration?.spanId });
  const order = JSON.parse((await runCliInProcess(['orders', 'add', '--pet-id', '7', '--quantity', '1'], env)).stdout) as { id: number };
  const { traceId, clientSpanId, traceparent } = clientTrace(99);
  const cancelled = await fetch(`${baseUrl}/v2/store/orders/${order.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}`, traceparent } });
  expect(cancelled.status).toBe(204);
  await until(() => endpoint.deliveries.length === 1);
  await until(() => collector.spans.filter((span) => span.traceId === traceId && span.name === 'POST').length === 1);
  const request = collector.spans.find((span) => span.traceId === traceId && span.kind === SERVER);
  expect(request).toMatchObject({ parentSpanId: clientSpanId, name: 'DELETE /v2/store/orders/{orderId}', attributes: { 'store_orders.operation_id': 'cancelOrder' } });
  const attempt = collector.spans.find((span) => span.traceId === traceId && span.name === 'POST');
  expect(attempt).toMatchObject({ kind: CLIENT, parentSpanId: request?.spanId, attributes: { 'store_orders.event_type': 'order.cancelled', 'http.response.status_code': 204 } });
  expect(endpoint.deliveries[0]?.headers.traceparent).toBe(`00-${traceId}-${attempt?.spanId}-01`);
}

/** Whether the collector has the three spans of each of the first `count` messages' traces. */
function everyTraceArrived(collector: OtlpReceiver, count: number): boolean {
  return Array.from({ length: count }, (_, n) => clientTrace(n).traceId).every(
    (traceId) => collector.spans.filter((span) => span.traceId === traceId).length >= 3,
  );
}

async function sendTraced(baseUrl: string, key: string, n: number): Promise<void> {
  const response = await fetch(`${baseUrl}/v2/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', traceparent: clientTrace(n).traceparent },
    body: JSON.stringify({ message: `traced message ${n}` }),
  });
  expect(response.status).toBe(202);
  // The trace context is the server's business: no answer carries it back.
  expect(response.headers.get('traceparent')).toBeNull();
  expect(response.headers.get('tracestate')).toBeNull();
}

interface Service {
  database: ScratchDatabase;
  webhooks: Receiver;
  collector: OtlpReceiver;
  env: NodeJS.ProcessEnv;
}

async function service(kind: 'sqlite' | 'postgres', protocol: string): Promise<Service> {
  const database = await scratchDatabase(kind, 'store-orders-traces-');
  const webhooks = await startReceiver();
  const collector = await startOtlpReceiver();
  cleanUps.push(() => database.drop(), () => webhooks.close(), () => collector.close());
  const env = {
    DATABASE_URL: database.url,
    MESSAGE_WEBHOOK_URL: webhooks.url,
    MESSAGE_WEBHOOK_SECRET: webhooks.secret,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'orders-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  return { database, webhooks, collector, env };
}

async function spawned(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const server = await spawnServer(env, { init: false });
  cleanUps.push(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    await server.finished;
  });
  return server;
}

const postgres = storeBackend('postgres');

describe('one message, one trace, exported over OTLP', () => {
  it.skipIf(!postgres.available)('from three servers on PostgreSQL (http/json): request, store call and attempt, parent to child', async () => {
    const { env, webhooks, collector } = await service('postgres', 'http/json');
    expect((await runCliInProcess(['init'], env)).code).toBe(0);
    const servers = [];
    for (let i = 0; i < 3; i++) servers.push(await spawned(env));
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], env)).stdout.trim();
    for (const [n, server] of servers.entries()) await sendTraced(server.baseUrl, key, n);
    await until(() => webhooks.deliveries.length === 3 && everyTraceArrived(collector, 3));
    expect(collector.contentTypes.every((type) => type === 'application/json')).toBe(true);
    for (let n = 0; n < 3; n++) expectMessageTrace(collector.spans, webhooks, n, 'postgresql', key);
  });

  it('from WORKERS=2 on SQLite (http/protobuf, the default), each worker exporting its own; a cancel to its event', async () => {
    const { env, webhooks, collector } = await service('sqlite', '');
    expect((await runCliInProcess(['init'], env)).code).toBe(0);
    const events = await startEventReceiver();
    cleanUps.push(() => events.close());
    const server = await spawned({ ...env, WORKERS: '2', WEBHOOK_TRACE_CONTEXT: 'true', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
    await untilWorkersListen(server, 2);
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], env)).stdout.trim();
    await expectCancelTrace(server.baseUrl, key, env, events.endpoint(), collector);
    for (let n = 0; n < 4; n++) await sendTraced(server.baseUrl, key, n);
    await until(() => webhooks.deliveries.length === 4 && everyTraceArrived(collector, 4));
    expect(collector.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
    for (let n = 0; n < 4; n++) expectMessageTrace(collector.spans, webhooks, n, 'sqlite', key);
    // The workers serve and deliver, and send their spans themselves: none comes from the primary.
    const pids = new Set(collector.spans.map(({ resource }) => resource['process.pid']));
    expect(pids.size).toBeGreaterThanOrEqual(1);
    expect(pids).not.toContain(server.child.pid);
  });
});

/** A server in this process, exporting to `collector` with a small queue. */
async function exportingServer(collector: OtlpReceiver, queue: Partial<TraceExportSettings> = {}): Promise<TestServer> {
  const settings: TraceExportSettings = {
    url: `${collector.endpoint}/v1/traces`,
    protocol: 'http/json',
    sampler: 'parentbased_always_on',
    ratio: 1,
    maxQueueSize: 8,
    maxExportBatchSize: 4,
    scheduleDelayMs: 20,
    ...queue,
  };
  const server = await startServer({ traces: { settings, system: 'sqlite' } });
  cleanUps.push(() => server.close());
  return server;
}

async function listOrdersTimes(server: TestServer, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
}

const spanCounts = async (server: TestServer) => {
  const families = await scrape(`${server.baseUrl}/metrics`);
  return {
    exported: valueOf(families, 'store_orders_trace_spans_exported_total'),
    queueFull: valueOf(families, 'store_orders_trace_spans_dropped_total', { reason: 'queue_full' }),
    failed: valueOf(families, 'store_orders_trace_spans_dropped_total', { reason: 'export_failed' }),
    queued: valueOf(families, 'store_orders_trace_spans_queued'),
  };
};

describe('a collector that cannot keep up', () => {
  it('that hangs: every request is answered, at most the queue of spans is kept, and the rest are dropped and counted', async () => {
    const collector = await startOtlpReceiver();
    cleanUps.push(() => collector.close());
    collector.answer = 'hang';
    const server = await exportingServer(collector);
    const { key } = await createKey(server.store);
    // Two spans each (the request, its store call): far more than the queue of 8 and the batch in flight.
    await listOrdersTimes(server, key, 100);
    const counts = await spanCounts(server);
    expect(counts.exported).toBe(0);
    expect(counts.queued).toBeLessThanOrEqual(8);
    // The one batch in flight (4 spans) is neither queued nor counted until its export ends.
    expect(counts.queueFull + counts.failed + counts.queued).toBeGreaterThanOrEqual(200 - 4);
    expect(collector.spans).toEqual([]);
  });

  it('that refuses: the batches it refused are dropped and counted, and once it accepts again spans arrive', async () => {
    const collector = await startOtlpReceiver();
    cleanUps.push(() => collector.close());
    collector.answer = 'refuse';
    // The exporter tries a refused batch again until its time-out (10 s unless set), read when it is made.
    process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '1000';
    cleanUps.push(() => Promise.resolve(delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT));
    const server = await exportingServer(collector, { maxQueueSize: 2048, maxExportBatchSize: 512 });
    const { key } = await createKey(server.store);
    await listOrdersTimes(server, key, 5);
    await until(async () => (await spanCounts(server)).failed === 10);
    expect((await spanCounts(server)).exported).toBe(0);
    collector.answer = 'accept';
    await listOrdersTimes(server, key, 1);
    await until(() => collector.spans.length === 2);
    expect(collector.spans.map(({ name }) => name).sort()).toEqual(['GET /v1/store/orders', 'listOrders']);
    expect(collector.spans.find(({ kind }) => kind === SERVER)?.statusCode).not.toBe(ERROR);
  });
});
