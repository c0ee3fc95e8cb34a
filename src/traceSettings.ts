// Whether, and how, this server exports its spans: OpenTelemetry's standard variables, as any OTLP
// exporter reads them. The OTLP exporter itself reads the endpoint's headers, time-out and compression
// (OTEL_EXPORTER_OTLP_HEADERS, …), and the SDK the service's name and resource (OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES); what is read here decides whether the SDK is loaded at all, and how spans are
// sampled and queued. docs/operating.md, "Tracing", lists them.
import { ConfigError } from './configError.js';
import { parseChoice, parseWhole } from './environment.js';
import type { TraceSampler } from './traceContext.js';

/** The OTLP transports this server speaks: HTTP only (no gRPC client is shipped). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

export interface TraceExportSettings {
  /** Where spans are sent: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT's `/v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  sampler: TraceSamplerName;
  /** The ratio of new traces sampled, for the `traceidratio` samplers. */
  ratio: number;
  /** Spans waiting for export at most; a span past it is dropped, and counted. */
  maxQueueSize: number;
  /** Spans per export at most. */
  maxExportBatchSize: number;
  /** How long a span waits for a batch to fill before it is sent anyway. */
  scheduleDelayMs: number;
}

/** The export's settings, or none: spans are exported only with an OTLP endpoint for them. */
export function loadTraceSettings(env: NodeJS.ProcessEnv): TraceExportSettings | undefined {
  const { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces, OTEL_EXPORTER_OTLP_ENDPOINT: base } = env;
  if ((!traces && !base) || env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none') {
    return undefined;
  }
  // As the specification has it: the traces' own endpoint is the URL itself, the base one takes a path.
  const url = traces ? checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces) : `${checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base ?? '').replace(/\/$/, '')}/v1/traces`;
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const maxQueueSize = parseWhole(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1);
  return {
    url,
    protocol: parseChoice(protocolName, env[protocolName]?.toLowerCase(), OTLP_PROTOCOLS, 'http/protobuf'),
    sampler: parseChoice('OTEL_TRACES_SAMPLER', env.OTEL_TRACES_SAMPLER?.toLowerCase(), TRACE_SAMPLERS, 'parentbased_always_on'),
    ratio: parseRatio(env.OTEL_TRACES_SAMPLER_ARG),
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, parseWhole(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1)),
    scheduleDelayMs: parseWhole(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 1),
  };
}

/** `raw` if it is an http(s) URL; the message does not repeat it, which may hold a collector's credentials. */
function checkedUrl(name: string, raw: string): string {
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(`${name} must be an http:// or https:// URL`);
  return raw;
}

function parseRatio(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const ratio = Number(raw);
  if (!/^[0-9.]+$/.test(raw) || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  }
  return ratio;
}

/**
 * The sampler as OpenTelemetry's specification defines each name. The ratio is taken of the trace id's
 * last 52 bits (random in every trace id made by a W3C Trace Context level 2 implementation, and in this
 * server's), so that every server decides alike for one trace.
 */
export function samplerOf({ sampler, ratio }: Pick<TraceExportSettings, 'sampler' | 'ratio'>): TraceSampler {
  const byRatio = (traceId: string) => parseInt(traceId.slice(-13), 16) < ratio * 2 ** 52;
  switch (sampler) {
    case 'always_on':
      return () => true;
    case 'always_off':
      return () => false;
    case 'traceidratio':
      return byRatio;
    case 'parentbased_always_on':
      return (_, caller) => caller ?? true;
    case 'parentbased_always_off':
      return (_, caller) => caller ?? false;
    case 'parentbased_traceidratio':
      return (traceId, caller) => caller ?? byRatio(traceId);
  }
}
