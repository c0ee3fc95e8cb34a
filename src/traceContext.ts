// W3C Trace Context, level 1 (https://www.w3.org/TR/trace-context/): the `traceparent` a request brings is
// continued when it is valid, and ignored when it is not (never a 400: a trace id ties logs together, it is
// trusted for nothing), in which case a new trace begins. Each request is a span of its own in that trace.
// `tracestate` is kept only beside a valid `traceparent`, as the specification asks.
import type { IncomingMessage } from 'node:http';
import { pooledRandomBytes } from './pooledRandom.js';

export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** This server's span for the request: 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The caller's span, when a valid `traceparent` named one. */
  parentSpanId?: string;
  /**
   * The trace flags: the sampled flag alone, `01` or `00`: the caller's decision passed on, or `01` for a new
   * trace; while spans are exported, the sampler's decision (sampleTracesWith).
   */
  flags: string;
  tracestate?: string;
}

/** The specification's bounds on `tracestate`: 32 list members, and what a vendor must propagate (512). */
const TRACESTATE_MAX_LENGTH = 512;

/** version-traceid-parentid-flags, each lowercase hex; a later version may add fields after a dash. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The caller's trace, if `header` is a valid `traceparent` (a repeated field is not). */
export function parseTraceparent(header: string | string[] | undefined): Omit<TraceContext, 'spanId'> | undefined {
  if (typeof header !== 'string') return undefined;
  const fields = TRACEPARENT.exec(header);
  if (!fields) return undefined;
  const [, version, traceId, parentSpanId, flags, rest] = fields as unknown as [string, string, string, string, string, string?];
  // `ff` is no version; version 00 has exactly these four fields; a later one may have more after a dash.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentSpanId)) return undefined;
  // Level 1 defines one flag, sampled; the others are passed on as 0.
  return { traceId, parentSpanId, flags: (parseInt(flags, 16) & 1) === 1 ? '01' : '00' };
}

/**
 * Whether a trace is sampled (its spans recorded and exported), decided where it enters this server: by the
 * trace id, and the caller's own decision when it sent one.
 */
export type TraceSampler = (traceId: string, callerSampled: boolean | undefined) => boolean;

/**
 * The process's sampler, set while spans are exported (telemetry/spanExport.ts, from the process's OTEL_*
 * variables); without export, a new trace is sampled and a caller's decision is passed on as it came.
 */
let sampler: TraceSampler | undefined;

export function sampleTracesWith(decide: TraceSampler | undefined): void {
  sampler = decide;
}

/** The request's trace context: the caller's trace continued, or a new one, with a span of this server's. */
export function traceContextOf(
  traceparent: string | string[] | undefined,
  tracestate: string | string[] | undefined,
  random: (bytes: number) => Buffer = pooledRandomBytes,
): TraceContext {
  const spanId = newSpanId(random);
  const caller = parseTraceparent(traceparent);
  if (!caller) {
    const traceId = nonZeroHex(16, random);
    return { traceId, spanId, flags: sampler === undefined || sampler(traceId, undefined) ? '01' : '00' };
  }
  const state = Array.isArray(tracestate) ? tracestate.join(',') : tracestate;
  const kept = state !== undefined && state.length <= TRACESTATE_MAX_LENGTH ? state : undefined;
  const flags = sampler === undefined ? caller.flags : sampler(caller.traceId, caller.flags === '01') ? '01' : '00';
  return { ...caller, flags, spanId, ...(kept !== undefined && { tracestate: kept }) };
}

/** Whether the spans of `context` are recorded, as its flags say. */
export function isSampled({ flags }: Pick<TraceContext, 'flags'>): boolean {
  return flags === '01';
}

/** The `traceparent` of a request made within `context` (a delivery): its trace, its span as the parent. */
export function traceparentOf({ traceId, spanId, flags }: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>): string {
  return `00-${traceId}-${spanId}-${flags}`;
}

/**
 * A span of the trace whose span is `traceparent` (stored with a message or an event: the request, or the
 * attempt, that caused it), for work done later on its behalf; a new trace when there is none.
 */
export function childSpanOf(traceparent: string | null | undefined): TraceContext {
  return traceContextOf(traceparent ?? undefined, undefined);
}

const REQUEST_TRACES = new WeakMap<IncomingMessage, TraceContext>();

/** The trace context of a request, made when first asked for: the same for every line and write of it. */
export function requestTrace(request: IncomingMessage): TraceContext {
  let context = REQUEST_TRACES.get(request);
  if (context === undefined) {
    const { traceparent, tracestate } = request.headers;
    REQUEST_TRACES.set(request, (context = traceContextOf(traceparent, tracestate)));
  }
  return context;
}

export type TraceFields = Pick<TraceContext, 'traceId' | 'spanId'>;

/** What a log line says of its trace. */
export function traceFields({ traceId, spanId }: TraceContext): TraceFields {
  return { traceId, spanId };
}

/** A new span id: 16 lowercase hex digits, not all zero. */
export function newSpanId(random: (bytes: number) => Buffer = pooledRandomBytes): string {
  return nonZeroHex(8, random);
}

function nonZeroHex(bytes: number, random: (bytes: number) => Buffer): string {
  for (;;) {
    const id = random(bytes).toString('hex');
    if (!/^0+$/.test(id)) return id;
  }
}
