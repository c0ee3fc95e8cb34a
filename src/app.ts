// The composition root: the Fastify server with each version's operations under its root (/v1 from
// openapi.yaml, /v2 from openapi.v2.yaml), the contracts themselves, their API reference at /docs,
// pointers to both from / and each root, health probes, metrics and opt-in CORS. Each part is registered
// here; none is written here.
import Fastify, { type FastifyInstance } from 'fastify';
import {
  DEFAULT_HTTP_LIMITS,
  DEFAULT_RATE_LIMITS,
  type MetricsConfig,
  type RateLimits,
} from './config.js';
import { API_VERSIONS, type Contracts } from './contract/document.js';
import { checkEndpointUrl } from './delivery/addresses.js';
import { startDelivery, tellingQueued } from './delivery/delivery.js';
import { newSecret } from './delivery/signature.js';
import { type ClientEndpointSettings, type DeliverySettings, loadClientEndpointSettings } from './delivery/settings.js';
import { registerDocs } from './docs/routes.js';
import { answersBeforeRouting } from './http/beforeRouting.js';
import { superviseConnections } from './http/connections.js';
import { allowCors } from './http/cors.js';
import { adaptNodeServer } from './http/nodeServer.js';
import { operationTable } from './http/operationTable.js';
import { registerPointers } from './http/pointers.js';
import { registerContractFiles, registerProbes } from './http/probes.js';
import { MemoryQuotaCount } from './http/quotaCount.js';
import { RequestQuotas } from './http/quotas.js';
import { KnownCallers } from './http/auth.js';
import { KeyUses } from './http/keyUses.js';
import { hideContentType, takeBodiesUnparsed } from './http/rawBodies.js';
import { registerOperations } from './http/routes.js';
import { type ListenerOptions, serverOptions } from './http/serverOptions.js';
import { type HandlersByVersion, storePartsOf, type WebhookEndpoints } from './operations/handler.js';
import { handlersByVersion } from './operations/index.js';
import { answerLikeTheApi } from './serving/commonAnswers.js';
import { closeConnectionsWhenStopping } from './serving/stopping.js';
import type { QuotaStore } from './store/quotas.js';
import type { Store } from './store/store.js';
import { instrument } from './telemetry/instrument.js';
import { createMetrics, type Metrics } from './telemetry/metrics.js';
import { lazyRequestLogs } from './telemetry/requestLog.js';
import { RequestLines } from './telemetry/requestLine.js';
import { type DatabaseSystem, type SpanExport, startSpanExport } from './telemetry/spanExport.js';
import { timedStore } from './telemetry/timedStore.js';
import type { TraceExportSettings } from './traceSettings.js';

export interface AppOptions extends Partial<ListenerOptions> {
  contracts: Contracts;
  store: Store;
  now?: () => Date;
  /** Each version's operation table; the real one for a version not given. */
  handlers?: Partial<HandlersByVersion>;
  rateLimits?: RateLimits;
  /** Where /metrics is served and whether it asks for a token; on this app, open, when absent. */
  metrics?: MetricsConfig;
  /** How often the calls to deprecated operations are written to the store; 5 s when absent. */
  deprecatedCallsFlushMs?: number;
  /** The browser origins allowed to call the API (CORS); none when absent. */
  corsOrigins?: readonly string[];
  /** This server is one worker of several (WORKERS>1): /metrics answers the sum over all of them. */
  metricsAcrossWorkers?: boolean;
  /**
   * Where the request quotas are counted when the store keeps no count (SQLite): the workers' primary's
   * (http/quotaCount.ts); this process's memory when absent.
   */
  quotaCount?: QuotaStore;
  /** Messages are delivered (and deleted past their retention) by this process; not at all when absent. */
  delivery?: DeliverySettings;
  /** The operator's rules for the endpoints accounts register (v2's webhook endpoints); the defaults when absent. */
  webhookEndpoints?: ClientEndpointSettings;
  /** Spans are exported over OTLP (telemetry/spanExport.ts); not at all, nor the SDK loaded, when absent. */
  traces?: { settings: TraceExportSettings; system: DatabaseSystem };
}

/** How long a stopping server waits for its last spans to be sent. */
const LAST_SPANS_MS = 2_000;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { now = () => new Date(), http = DEFAULT_HTTP_LIMITS } = options;
  const contracts = API_VERSIONS.map((version) => options.contracts[version]);
  const requestLines = new RequestLines();
  const beforeRouting = answersBeforeRouting(contracts, now, (request, reply) =>
    requestLines.requestCompleted(null, request, reply),
  );
  const requestLogging = { childLoggerFactory: lazyRequestLogs, logController: requestLines };
  const app = Fastify(serverOptions({ ...options, http }, beforeRouting, requestLogging));
  superviseConnections(app.server, http, () =>
    app.log.warn('nothing moved on a connection with a request in flight for the idle timeout: it is closed'),
  );
  adaptNodeServer(app.server, app.log);

  // What comes before routing, in one function run by one hook per route, or by the route's handler: Fastify's
  // cost is per hook. What every answer needs as it is sent is done by the one exit (serving/reply.ts).
  const preflight = allowCors(app, options.corsOrigins ?? []);
  const opening = answerLikeTheApi(app, (request, reply) => {
    hideContentType(request);
    return beforeRouting.refuseMalformedFraming(request, reply) || preflight(request, reply);
  });
  takeBodiesUnparsed(app);
  closeConnectionsWhenStopping(app);

  const metrics = createMetrics();
  const store = timedStore(options.store, metrics.storeCallDuration);
  const spans = await exportedSpans(app, options.traces, metrics);
  instrument(app, metrics, {
    contracts,
    store,
    now,
    metrics: options.metrics ?? {},
    deprecatedCallsFlushMs: options.deprecatedCallsFlushMs ?? 5_000,
    acrossWorkers: options.metricsAcrossWorkers ?? false,
    spans,
  });
  registerProbes(app, store);
  registerContractFiles(app, contracts);
  registerDocs(app);
  registerPointers(app, contracts);

  const handlers = { ...handlersByVersion, ...options.handlers };
  const { v1, v2 } = options.contracts;
  const apis = [
    { contract: v1, table: operationTable('v1', v1, handlers.v1) },
    { contract: v2, table: operationTable('v2', v2, handlers.v2) },
  ];
  const quotaCount = store.quotas ?? options.quotaCount ?? new MemoryQuotaCount();
  const quotas = new RequestQuotas(options.rateLimits ?? DEFAULT_RATE_LIMITS, quotaCount, options.now);
  const callers = new KnownCallers(store.keys);
  const keyUses = new KeyUses(store.keys, app.log, now);
  app.addHook('onClose', () => keyUses.flush());
  const endpoints = options.webhookEndpoints ?? loadClientEndpointSettings({});
  const parts = storePartsOf(
    deliveredBy(app, store, options.delivery, { messages: metrics.delivery, events: metrics.eventDelivery, spans }, endpoints),
    webhookEndpointsOf(store, endpoints),
  );
  registerOperations(app, apis, opening, { callers, keyUses, parts, quotas, now, spans });
  return app;
}

/**
 * The export of spans, when asked for, stopped with the app. Fastify runs onClose hooks last added first:
 * added before the delivery's, this one runs after it, and the last attempts' spans go too.
 */
async function exportedSpans(app: FastifyInstance, traces: AppOptions['traces'], metrics: Metrics): Promise<SpanExport | undefined> {
  if (traces === undefined) return undefined;
  const spans = await startSpanExport(traces.settings, traces.system, metrics.traceSpans);
  app.addHook('onClose', () => spans.close(LAST_SPANS_MS));
  return spans;
}

/** The webhook operations' part: the store's endpoints under the operator's rules (delivery/). */
function webhookEndpointsOf(store: Store, settings: ClientEndpointSettings): WebhookEndpoints {
  return {
    webhooks: store.webhooks,
    checkUrl: async (url) => {
      const verdict = await checkEndpointUrl(url, settings.addresses);
      return 'refused' in verdict ? verdict : { url: verdict.url.href };
    },
    newSecret,
    maxPerAccount: settings.maxPerAccount,
    retentionMs: settings.retentionMs,
  };
}

/** The store whose queued messages this app's delivery is told of, once started; `store` without one. */
function deliveredBy(
  app: FastifyInstance,
  store: Store,
  settings: DeliverySettings | undefined,
  observers: Parameters<typeof startDelivery>[3],
  endpoints: ClientEndpointSettings,
): Store {
  if (settings === undefined) return store;
  const delivery = startDelivery(store, settings, app.log, observers, endpoints);
  app.addHook('onClose', () => delivery.close());
  return { ...store, messages: tellingQueued(store.messages, delivery.queued) };
}
