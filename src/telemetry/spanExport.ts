// OpenTelemetry export of this server's spans, when an operator asks for it (traceSettings.ts): the SDK is
// imported here, dynamically, and only then; without an OTLP endpoint not one of its modules is loaded.
//
// The spans are made from the trace context the server keeps anyway (traceContext.ts): the request's span
// id is the one its log lines and its stored `traceparent` carry. Each is recorded once finished, as the
// SDK's ReadableSpan, the form its exporters take, and sent by its OTLP exporter through a bounded queue
// (spanQueue.ts): the SDK's tracer would make each span twice (its own object, then this one), and its ids
// would not be the ones the logs carry. Neither @fastify/otel nor the pg instrumentation is used: the first
// spans every hook of every request through an AsyncLocalStorage context (the published cost, 37–81% of a
// trivial route's requests per second); the second would give a statement of PostgreSQL's group commit,
// which writes the requests of one turn together, to whichever request's context flushed it.
// docs/operating.md, "Exporting spans".
import type { HrTime, SpanContext, SpanKind, SpanStatus, TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type FinishedSpan, type SpanAttributes, type SpanRecorder, spanTime } from '../spans.js';
import { isSampled, newSpanId, sampleTracesWith, type TraceContext } from '../traceContext.js';
import { samplerOf, type TraceExportSettings } from '../traceSettings.js';
import { VERSION } from '../version.js';
import { type SpanQueueObserver, SpanQueue } from './spanQueue.js';
import { STORE_METHODS } from './timedStore.js';

export interface SpanExport extends SpanRecorder {
  /** Sends what is queued, within `limitMs`, and stops. */
  close(limitMs: number): Promise<void>;
}

/** The database this server's store calls go to, as OpenTelemetry's conventions name it. */
export type DatabaseSystem = 'sqlite' | 'postgresql';

export async function startSpanExport(
  settings: TraceExportSettings,
  system: DatabaseSystem,
  observer: SpanQueueObserver,
): Promise<SpanExport> {
  const [api, resources, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/resources'),
    settings.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  // The service's own name and version, which OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override, and
  // the process: each worker of several exports its own spans.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'store-orders', 'service.version': VERSION, 'process.pid': process.pid }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const instrumentationScope = { name: 'store-orders', version: VERSION };
  const queue = new SpanQueue(new otlp.OTLPTraceExporter({ url: settings.url }), settings, observer);
  sampleTracesWith(samplerOf(settings));

  const shared: SpanShared = {
    resource,
    instrumentationScope,
    kinds: { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT },
    unset: { code: api.SpanStatusCode.UNSET },
    error: { code: api.SpanStatusCode.ERROR },
    sampled: api.TraceFlags.SAMPLED,
  };
  const record = (finished: FinishedSpan): void => queue.onEnd(new ExportedSpan(finished, shared));

  return {
    record,
    storeCalls: (part, request) => (isSampled(request) ? spannedCalls(part, request, system, record) : part),
    close: async (limitMs) => {
      sampleTracesWith(undefined);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
      await Promise.race([queue.shutdown(), late]);
      clearTimeout(timer);
    },
  };
}

interface SpanShared {
  resource: ReadableSpan['resource'];
  instrumentationScope: ReadableSpan['instrumentationScope'];
  kinds: Record<FinishedSpan['kind'], SpanKind>;
  unset: SpanStatus;
  error: SpanStatus;
  sampled: TraceFlags;
}

const NONE: [] = [];

/** A finished span as the SDK's exporters read it: one object, its fields made once. */
class ExportedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly #context: SpanContext;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Record<string, string | number | boolean>;
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly ended = true;
  readonly links = NONE;
  readonly events = NONE;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly #durationMs: number;

  constructor({ name, kind, context, start, end, attributes, failed }: FinishedSpan, shared: SpanShared) {
    const { traceId, spanId, parentSpanId } = context;
    const traceFlags = shared.sampled;
    this.name = name;
    this.kind = shared.kinds[kind];
    this.#context = { traceId, spanId, traceFlags };
    if (parentSpanId !== undefined) this.parentSpanContext = { traceId, spanId: parentSpanId, traceFlags, isRemote: kind === 'server' };
    this.startTime = hrTime(start);
    this.endTime = hrTime(end);
    this.#durationMs = end - start;
    this.status = failed ? shared.error : shared.unset;
    this.attributes = defined(attributes);
    this.resource = shared.resource;
    this.instrumentationScope = shared.instrumentationScope;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  /** Read by no exporter of this server's; made when asked. */
  get duration(): HrTime {
    return hrTime(this.#durationMs);
  }
}

/** Milliseconds (since the epoch, or a duration) as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
}

/** The attributes that have a value: OTLP has no undefined. */
function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const kept: Record<string, string | number | boolean> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
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
