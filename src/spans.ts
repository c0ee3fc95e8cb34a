// The spans this server records of a sampled trace while an operator exports them (OTEL_EXPORTER_OTLP_*,
// telemetry/spanExport.ts): each request, the store calls its operation makes, each delivery attempt. The
// layers that make them are given a recorder; without export they are given none, and build nothing.
import type { TraceContext } from './traceContext.js';

/** OpenTelemetry's span kinds that this server's spans have: a request it serves, a call it makes. */
export type SpanKind = 'server' | 'client';

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface FinishedSpan {
  name: string;
  kind: SpanKind;
  /** Its trace, its own id, and its parent's when it has one. */
  context: Pick<TraceContext, 'traceId' | 'spanId' | 'parentSpanId'>;
  /** Milliseconds since the epoch, fractions included. */
  start: number;
  end: number;
  attributes: SpanAttributes;
  /** The span's status is an error: a 5xx served, an attempt that did not deliver. */
  failed: boolean;
}

export interface SpanRecorder {
  /** A span of a sampled trace, finished. */
  record(span: FinishedSpan): void;
  /** The operation's part of the store with each of its calls a span, a child of the request's span. */
  storeCalls<Part>(part: Part, request: TraceContext): Part;
}

/** The time now as a span's, in milliseconds since the epoch. */
export function spanTime(): number {
  return performance.timeOrigin + performance.now();
}
