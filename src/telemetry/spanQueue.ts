// The finished spans on their way to the OTLP exporter: a queue bounded in spans, sent in batches, one
// export at a time. A collector that is slow, down or hanging never holds a request: a span that finds the
// queue full is dropped, and a batch the exporter could not send is dropped after its own retries and
// time-out; both are counted (store_orders_trace_spans_dropped_total). The SDK's BatchSpanProcessor does the
// same but keeps its drop count to itself.
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TraceExportSettings } from '../traceSettings.js';

export const DROP_REASONS = ['queue_full', 'export_failed'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface SpanQueueObserver {
  exported(spans: number): void;
  dropped(reason: DropReason, spans: number): void;
  /** The spans waiting now, the batch in flight left out. */
  waiting(spans: number): void;
}

type QueueSettings = Pick<TraceExportSettings, 'maxQueueSize' | 'maxExportBatchSize' | 'scheduleDelayMs'>;

/** OpenTelemetry core's ExportResultCode.SUCCESS (this module loads nothing of the SDK itself). */
const EXPORTED = 0;

export class SpanQueue implements SpanProcessor {
  readonly #spans: ReadableSpan[] = [];
  readonly #exporter: SpanExporter;
  readonly #settings: QueueSettings;
  readonly #observer: SpanQueueObserver;
  readonly #timer: NodeJS.Timeout;
  /** The export in flight, if any. */
  #exporting: Promise<void> | undefined;

  constructor(exporter: SpanExporter, settings: QueueSettings, observer: SpanQueueObserver) {
    this.#exporter = exporter;
    this.#settings = settings;
    this.#observer = observer;
    // A span waits at most this long for its batch to fill.
    this.#timer = setInterval(() => this.#send(), settings.scheduleDelayMs);
    this.#timer.unref();
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#spans.length >= this.#settings.maxQueueSize) {
      this.#observer.dropped('queue_full', 1);
      return;
    }
    this.#spans.push(span);
    if (this.#spans.length >= this.#settings.maxExportBatchSize) this.#send();
    this.#observer.waiting(this.#spans.length);
  }

  /** Sends what is queued, batch after batch; with a collector that hangs, as long as its time-outs take. */
  async forceFlush(): Promise<void> {
    while (this.#spans.length > 0 || this.#exporting) {
      this.#send();
      await this.#exporting;
    }
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
    await this.forceFlush();
    await this.#exporter.shutdown();
  }

  #send(): void {
    if (this.#exporting || this.#spans.length === 0) return;
    const batch = this.#spans.splice(0, this.#settings.maxExportBatchSize);
    this.#observer.waiting(this.#spans.length);
    this.#exporting = new Promise((resolve) =>
      this.#exporter.export(batch, ({ code }: ExportResult) => {
        if ((code as number) === EXPORTED) this.#observer.exported(batch.length);
        else this.#observer.dropped('export_failed', batch.length);
        this.#exporting = undefined;
        resolve();
        if (this.#spans.length >= this.#settings.maxExportBatchSize) this.#send();
      }),
    );
  }
}
