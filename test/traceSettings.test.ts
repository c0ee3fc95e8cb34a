// The export's settings from OpenTelemetry's standard variables, and the sampler they name, as it decides
// the trace flags where a trace enters the server (traceContext.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/configError.js';
import { sampleTracesWith, traceContextOf } from '../src/traceContext.js';
import { loadTraceSettings, samplerOf, TRACE_SAMPLERS } from '../src/traceSettings.js';

const ENDPOINT = 'http://collector.internal:4318';

describe('loadTraceSettings', () => {
  it('exports nothing without an endpoint, or when the SDK or the traces exporter is turned off', () => {
    expect(loadTraceSettings({})).toBeUndefined();
    expect(loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('sends to the base endpoint\'s /v1/traces, or to the traces\' own endpoint as given, with the specification\'s defaults', () => {
    expect(loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: `${ENDPOINT}/` })).toEqual({
      url: `${ENDPOINT}/v1/traces`,
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduleDelayMs: 5000,
    });
    const own = loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/spans` });
    expect(own?.url).toBe(`${ENDPOINT}/spans`);
    const json = loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_MAX_QUEUE_SIZE: '100' });
    expect(json).toMatchObject({ protocol: 'http/json', maxQueueSize: 100, maxExportBatchSize: 100 });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"'],
    [{ OTEL_TRACES_SAMPLER: 'xray' }, 'OTEL_TRACES_SAMPLER must be one of'],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "1.5"'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL'],
  ])('refuses %o at start, naming the variable', (env, message) => {
    expect(() => loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env })).toThrow(ConfigError);
    expect(() => loadTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env })).toThrow(message);
  });

  it('never repeats an endpoint it refuses, which may hold credentials', () => {
    expect(() => loadTraceSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://user:secret@collector' })).toThrow(/^(?!.*secret)/);
  });
});

describe('the sampler', () => {
  const traceIds = Array.from({ length: 2000 }, () => traceContextOf(undefined, undefined).traceId);

  it('follows the caller\'s decision when parent-based, and decides a new trace by its kind', () => {
    for (const name of TRACE_SAMPLERS.filter((sampler) => sampler.startsWith('parentbased'))) {
      const decide = samplerOf({ sampler: name, ratio: 0.5 });
      expect(decide('0af7651916cd43dd8448eb211c80319c', true), name).toBe(true);
      expect(decide('0af7651916cd43dd8448eb211c80319c', false), name).toBe(false);
    }
    expect(samplerOf({ sampler: 'parentbased_always_on', ratio: 1 })('0af7651916cd43dd8448eb211c80319c', undefined)).toBe(true);
    expect(samplerOf({ sampler: 'parentbased_always_off', ratio: 1 })('0af7651916cd43dd8448eb211c80319c', undefined)).toBe(false);
    expect(samplerOf({ sampler: 'always_off', ratio: 1 })('0af7651916cd43dd8448eb211c80319c', true)).toBe(false);
  });

  it('samples about the ratio of new traces, the same way for one trace id every time', () => {
    const decide = samplerOf({ sampler: 'traceidratio', ratio: 0.1 });
    const sampled = traceIds.filter((traceId) => decide(traceId, undefined));
    // 2,000 random ids at 10%: 200 expected, and 140 to 260 is over six standard deviations.
    expect(sampled.length).toBeGreaterThan(140);
    expect(sampled.length).toBeLessThan(260);
    expect(sampled.every((traceId) => decide(traceId, true) && decide(traceId, false))).toBe(true);
  });
});

describe('the trace flags, while a sampler is set', () => {
  afterEach(() => sampleTracesWith(undefined));

  it('are the sampler\'s decision, for a new trace and for a continued one', () => {
    sampleTracesWith(samplerOf({ sampler: 'parentbased_always_off', ratio: 1 }));
    expect(traceContextOf(undefined, undefined).flags).toBe('00');
    expect(traceContextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', undefined).flags).toBe('01');
    sampleTracesWith(samplerOf({ sampler: 'always_off', ratio: 1 }));
    expect(traceContextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', undefined).flags).toBe('00');
    sampleTracesWith(undefined);
    expect(traceContextOf(undefined, undefined).flags).toBe('01');
    expect(traceContextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00', undefined).flags).toBe('00');
  });
});
