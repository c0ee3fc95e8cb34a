// Wires the telemetry into an app: request metrics by operation and status, timed store calls, the calls
// to deprecated operations per account, and GET /metrics on the app or on a listener of its own.
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MetricsConfig } from '../config.js';
import { deprecationPolicies } from '../contract/deprecation.js';
import { type ApiVersion, type Contract, operationsOf } from '../contract/document.js';
import { readOnlyRoute } from '../serving/methods.js';
import { type SpanRecorder, spanTime } from '../spans.js';
import type { Store } from '../store/store.js';
import { isSampled, requestTrace } from '../traceContext.js';
import { DeprecatedCallLog } from './deprecatedCalls.js';
import { type Metrics, NO_OPERATION, observeStore } from './metrics.js';
import { buildMetricsServer, METRICS_PATH, metricsHandler } from './metricsEndpoint.js';
import { routeOf } from './requestLine.js';
import type { HistogramSeries } from './talliedHistogram.js';
import { scrapedAcrossWorkers } from './workerScrape.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the route made for each operation of a contract. */
    operationId?: string;
    /** The version of the API whose contract has that operation. */
    apiVersion?: ApiVersion;
  }
  interface FastifyInstance {
    /** The listener of its own that serves /metrics when METRICS_PORT is set; not yet listening. */
    metricsServer: FastifyInstance | null;
  }
}

export interface TelemetryOptions {
  contracts: readonly Contract[];
  /** The store whose calls `metrics` times (timedStore.ts). */
  store: Store;
  now: () => Date;
  metrics: MetricsConfig;
  deprecatedCallsFlushMs: number;
  /** This server is one worker of several: /metrics answers the sum over all of them (workerScrape.ts). */
  acrossWorkers: boolean;
  /** While spans are exported: each request of a sampled trace is a server span. */
  spans?: SpanRecorder | undefined;
}

export function instrument(app: FastifyInstance, metrics: Metrics, options: TelemetryOptions): void {
  const { contracts, now, store } = options;
  observeStore(metrics, store.telemetry);

  const deprecated = new Set(
    contracts.flatMap(({ document }) => [...deprecationPolicies(operationsOf(document)).keys()]),
  );
  // A series that exists at 0 tells "nobody calls it" apart from "not measured".
  for (const operation of deprecated) metrics.deprecatedCalls.inc({ operation }, 0);
  const deprecatedCalls = new DeprecatedCallLog(store.telemetry);
  deprecatedCalls.start(options.deprecatedCallsFlushMs, (error) =>
    app.log.error({ err: error }, 'could not write the deprecated calls; kept for the next flush'),
  );

  // The series of each route and status, found without building its labels on every request: a route's
  // config is one object for the route's life.
  const requestSeries = new WeakMap<object, Map<number, HistogramSeries>>();
  const seriesOf = (config: FastifyContextConfig, status: number) => {
    let byStatus = requestSeries.get(config);
    if (byStatus === undefined) requestSeries.set(config, (byStatus = new Map<number, HistogramSeries>()));
    let series = byStatus.get(status);
    if (series === undefined) {
      const { operationId: operation = NO_OPERATION, apiVersion: api = NO_OPERATION } = config;
      series = metrics.requestDuration.series({ api, operation, status: String(status) });
      byStatus.set(status, series);
    }
    return series;
  };
  const { spans } = options;
  app.addHook('onResponse', (request, reply, done) => {
    const { config } = request.routeOptions;
    seriesOf(config, reply.statusCode).observe(reply.elapsedTime / 1000);
    if (spans) recordRequestSpan(spans, config, request, reply);
    const operation = config.operationId ?? NO_OPERATION;
    if (deprecated.has(operation)) {
      metrics.deprecatedCalls.inc({ operation });
      // Only a valid key names an account; a call without one is in the counter alone.
      if (request.principal) deprecatedCalls.record(operation, request.principal.accountId, now());
    }
    done();
  });

  const scraped = options.acrossWorkers
    ? scrapedAcrossWorkers(metrics, (error) => app.log.error({ err: error }, "could not read this worker's metrics for the primary"))
    : metrics;
  const metricsServer =
    options.metrics.port === undefined ? null : buildMetricsServer(scraped, options.metrics.token);
  if (metricsServer === null) readOnlyRoute(app, METRICS_PATH, metricsHandler(scraped, options.metrics.token));
  app.decorate('metricsServer', metricsServer);

  app.addHook('onClose', async () => {
    try {
      await deprecatedCalls.close();
    } catch (error) {
      app.log.error({ err: error }, 'could not write the last deprecated calls');
    }
    await metricsServer?.close();
  });
}

/**
 * A request to an operation as an HTTP server span (OpenTelemetry's conventions): the route's template, never
 * its URL. Probes, scrapes, the contracts' files, the reference and unknown paths make none: a trace is a
 * client's call to the API.
 */
function recordRequestSpan(spans: SpanRecorder, config: FastifyContextConfig & { url?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const route = routeOf(config);
  if (config.operationId === undefined || route === undefined) return;
  const context = requestTrace(request.raw);
  if (!isSampled(context)) return;
  const status = reply.statusCode;
  const end = spanTime();
  spans.record({
    name: `${request.method} ${route}`,
    kind: 'server',
    context,
    start: end - reply.elapsedTime,
    end,
    attributes: {
      'http.request.method': request.method,
      'http.route': route,
      'http.response.status_code': status,
      'url.scheme': 'http',
      'error.type': status >= 500 ? String(status) : undefined,
      'store_orders.operation_id': config.operationId,
      'store_orders.api_version': config.apiVersion,
    },
    failed: status >= 500,
  });
}
