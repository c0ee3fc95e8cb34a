// The Prometheus instruments of one app, in registries of its own, and the text a scrape answers.
// Every label has a bounded set of values: API versions and operationIds (or "none"), HTTP statuses, Store
// method names, order states, message statuses, delivery outcomes. Never an id, a key, a path or a URL.
import { collectDefaultMetrics, Counter, Gauge, Registry } from './promClient.js';
import { TalliedHistogram } from './talliedHistogram.js';
import type { DeliveryObserver, EventDeliveryObserver } from '../delivery/ports.js';
import { ORDER_STATUSES, type TelemetryStore } from '../store/store.js';
import { deliveryMetrics, eventDeliveryMetrics, observeEvents, observeMessages } from './deliveryMetrics.js';
import type { MetricFamily } from '../workerMessages.js';
import { DROP_REASONS, type SpanQueueObserver } from './spanQueue.js';

/** The version and operation of requests that matched no operation: probes, the contracts' files, unknown paths. */
export const NO_OPERATION = 'none';

export interface Metrics {
  /** This process's own instruments: with several workers, the scrape answers their sum over all. */
  registry: Registry;
  /** The gauges read from the store at scrape time: the same for every worker, and so never summed. */
  storeGauges: Registry;
  /** Each request's series counts it too: store_orders_http_requests_total is read from their counts. */
  requestDuration: TalliedHistogram<'api' | 'operation' | 'status'>;
  storeCallDuration: TalliedHistogram<'method'>;
  deprecatedCalls: Counter<'operation'>;
  /** What the delivery of messages tells (delivery/dispatcher.ts). */
  delivery: DeliveryObserver;
  /** What the delivery of the accounts' events tells (delivery/eventDispatcher.ts). */
  eventDelivery: EventDeliveryObserver;
  /** What the export of spans tells, while spans are exported (spanQueue.ts). */
  traceSpans: SpanQueueObserver;
  /** The exposition text: this app's metrics, the store's gauges, then the process's. */
  scrape(): Promise<string>;
  /** This process's metrics as prom-client's JSON, for the primary of several workers to sum. */
  ownFamilies(): Promise<OwnFamilies>;
  contentType: string;
}

export interface OwnFamilies {
  /** The app's own: counters and histograms, which add up over workers. */
  service: MetricFamily[];
  /** Node's process metrics, which are one process's each. */
  process: MetricFamily[];
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  new Counter({
    name: 'store_orders_http_requests_total',
    help: 'HTTP requests answered, by API (v1, v2; "none" outside them), operationId ("none" likewise) and status.',
    labelNames: ['api', 'operation', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of requestDuration.observedSeries()) this.inc(series.labels, series.count);
    },
  });
  const requestDuration = new TalliedHistogram(
    'store_orders_http_request_duration_seconds',
    'Time from receiving a request to the end of its answer, by API, operationId and status.',
    ['api', 'operation', 'status'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registry,
  );
  const storeCallDuration = new TalliedHistogram(
    'store_orders_store_call_duration_seconds',
    'Time spent in each Store method; for writes, until their commit.',
    ['method'],
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registry,
  );
  const deprecatedCalls = new Counter({
    name: 'store_orders_deprecated_calls_total',
    help: 'Requests to deprecated operations, with or without a valid key, by operationId.',
    labelNames: ['operation'] as const,
    registers,
  });
  const storeGauges = new Registry();
  return {
    traceSpans: traceSpanMetrics(registry),
    delivery: deliveryMetrics(registry),
    eventDelivery: eventDeliveryMetrics(registry),
    registry,
    storeGauges,
    requestDuration,
    storeCallDuration,
    deprecatedCalls,
    contentType: registry.contentType,
    scrape: async () =>
      `${await registry.metrics()}\n${await storeGauges.metrics()}\n${await processRegistry().metrics()}`,
    ownFamilies: async () => ({
      service: (await registry.getMetricsAsJSON()) as unknown as MetricFamily[],
      process: (await processRegistry().getMetricsAsJSON()) as unknown as MetricFamily[],
    }),
  };
}

/** The spans exported and dropped; at 0 unless spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT). */
function traceSpanMetrics(registry: Registry): SpanQueueObserver {
  const registers = [registry];
  const exported = new Counter({
    name: 'store_orders_trace_spans_exported_total',
    help: 'Spans the OTLP exporter sent and the collector accepted.',
    registers,
  });
  const dropped = new Counter({
    name: 'store_orders_trace_spans_dropped_total',
    help: 'Spans dropped, by reason: queue_full (the export could not keep up), export_failed (the collector refused or did not answer).',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of DROP_REASONS) dropped.inc({ reason }, 0);
  const waiting = new Gauge({
    name: 'store_orders_trace_spans_queued',
    help: 'Spans waiting for export, at most OTEL_BSP_MAX_QUEUE_SIZE (the batch being sent left out).',
    registers,
  });
  return {
    exported: (spans) => exported.inc(spans),
    dropped: (reason, spans) => dropped.inc({ reason }, spans),
    waiting: (spans) => waiting.set(spans),
  };
}

/**
 * Gauges read from the store at scrape time: orders by state and the message queue's depth. Separate from
 * createMetrics because the store they read is the timed one, which needs the instruments first.
 */
export function observeStore({ storeGauges }: Metrics, store: TelemetryStore): void {
  new Gauge({
    name: 'store_orders_orders',
    help: 'Orders in the store by state, read at scrape time.',
    labelNames: ['state'] as const,
    registers: [storeGauges],
    async collect() {
      // A database that cannot answer leaves the series out of this scrape rather than failing it, so
      // the request and process metrics still arrive; /readyz says why.
      try {
        const counts = await store.countOrdersByStatus();
        for (const state of ORDER_STATUSES) this.set({ state }, counts[state]);
      } catch {
        this.reset();
      }
    },
  });
  observeMessages(storeGauges, store);
  observeEvents(storeGauges, store);
  new Gauge({
    name: 'store_orders_message_queue_depth',
    help: 'Messages with status queued, read at scrape time.',
    registers: [storeGauges],
    async collect() {
      try {
        this.set(await store.countQueuedMessages());
      } catch {
        this.reset();
      }
    },
  });
}

let processMetrics: Registry | undefined;

/**
 * Node's default process metrics, in one registry per process (not prom-client's global one). Their
 * collectors (a GC observer, an event-loop delay monitor) are process-wide and never released, so one
 * set per app would pile up in a test run that builds hundreds of apps.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics(processMetrics);
    // Its labels are Node's exact version: a stack fingerprint on an endpoint that is open by default.
    processMetrics.removeSingleMetric('nodejs_version_info');
  }
  return processMetrics;
}

/** Messages by status, and how long the oldest one queued has waited, read at scrape time. */

