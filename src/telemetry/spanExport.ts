// OpenTelemetry export of this server's spans, when an operator asks for it (traceSettings.ts): the SDK is
// imported here, dynamically, and only then; without an OTLP endpoint not one of its modules is loaded.
//
// The spans are made from the trace context the server keeps anyway (traceContext.ts): the request's span
// id is the one its log lines and its stored `traceparent` carry, so the SDK's tracer is handed each span's
// ids (GivenIds) rather than making its own, and each span is recorded once finished, with the times it
// began and ended. Neither @fastify/otel nor the pg instrumentation is used: the first spans every hook of
// every request through an AsyncLocalStorage context (the published cost, 37–81% of a trivial route's
// requests per second); the second would give a statement of PostgreSQL's group commit, which writes the
// requests of one turn together, to whichever request's context flushed it. docs/operating.md, "Tracing".
import { VERSION } from '../version.js';
import { type FinishedSpan, type SpanRecorder, spanTime } from '../spans.js';
import { isSampled, newSpanId, sampleTracesWith, type TraceContext } from '../traceContext.js';
import { type SpanQueueObserver, SpanQueue } from './spanQueue.js';
import { STORE_METHODS } from './timedStore.js';
import { samplerOf, type TraceExportSettings } from '../traceSettings.js';

export interface SpanExport extends SpanRecorder {
  /** Sends what is queued, within `limitMs`, and stops. */
  close(limitMs: number): Promise<void>;
}

/** The database this server's store calls go to, as OpenTelemetry's conventions name it. */
export type DatabaseSystem = 'sqlite' | 'postgresql';

/** Hands the tracer the ids of the span it is about to start: its `startSpan` asks for them at once. */
class GivenIds {
  traceId = '';
  spanId = '';
  generateTraceId = () => this.traceId;
  generateSpanId = () => this.spanId;
}

export async function startSpanExport(
  settings: TraceExportSettings,
  system: DatabaseSystem,
  observer: SpanQueueObserver,
): Promise<SpanExport> {
  const [api, core, sdk, resources, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const ids = new GivenIds();
  // The service's own name and version, which OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override, and
  // the process: each worker of several exports its own spans.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'store-orders', 'service.version': VERSION, 'process.pid': process.pid }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const queue = new SpanQueue(new otlp.OTLPTraceExporter({ url: settings.url }), settings, observer);
  // Sampled once per trace where it enters (traceContext.ts): only sampled spans come here.
  const provider = new sdk.BasicTracerProvider({ resource, idGenerator: ids, sampler: new sdk.AlwaysOnSampler(), spanProcessors: [queue] });
  const tracer = provider.getTracer('store-orders', VERSION);
  sampleTracesWith(samplerOf(settings));

  const record = ({ name, kind, context, start, end, attributes, failed }: FinishedSpan): void => {
    ids.traceId = context.traceId;
    ids.spanId = context.spanId;
    const parent =
      context.parentSpanId === undefined
        ? api.ROOT_CONTEXT
        : api.trace.setSpanContext(api.ROOT_CONTEXT, {
            traceId: context.traceId,
            spanId: context.parentSpanId,
            traceFlags: api.TraceFlags.SAMPLED,
            isRemote: true,
            ...(context.tracestate !== undefined && { traceState: new core.TraceState(context.tracestate) }),
          });
    const span = tracer.startSpan(
      name,
      { kind: kind === 'server' ? api.SpanKind.SERVER : api.SpanKind.CLIENT, startTime: start, attributes },
      parent,
    );
    if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end(end);
  };

  return {
    record,
    storeCalls: (part, request) => (isSampled(request) ? spannedCalls(part, request, system, record) : part),
    close: async (limitMs) => {
      sampleTracesWith(undefined);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
      await Promise.race([provider.shutdown(), late]);
      clearTimeout(timer);
    },
  };
}

/**
 * `part` (an operation's part of the store, or the object holding it) with each call of a Store method a
 * client span of `request`: from the call to its answer, named by the method, never with its arguments.
 */
function spannedCalls<Part>(part: Part, request: TraceContext, system: DatabaseSystem, record: (span: FinishedSpan) => void): Part {
  if (typeof part !== 'object' || part === null) return part;
  return new Proxy(part, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof name !== 'string') return value;
      if (typeof value === 'object') return spannedCalls(value, request, system, record);
      if (typeof value !== 'function' || !STORE_METHODS.has(name)) return value;
      return (...args: unknown[]) => {
        const start = spanTime();
        const finish = (failed: boolean) =>
          record({
            name,
            kind: 'client',
            context: { traceId: request.traceId, spanId: newSpanId(), parentSpanId: request.spanId },
            start,
            end: spanTime(),
            attributes: { 'db.system.name': system, 'db.operation.name': name },
            failed,
          });
        const result: unknown = (value as (...args: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) {
          finish(false);
          return result;
        }
        return result.then(
          (answer: unknown) => {
            finish(false);
            return answer;
          },
          (error: unknown) => {
            finish(true);
            throw error;
          },
        );
      };
    },
  });
}
