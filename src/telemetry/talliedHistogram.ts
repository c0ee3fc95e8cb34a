// A histogram kept as plain numbers while requests are answered, and read by prom-client's registry only
// when scraped. prom-client's own Histogram checks and hashes the labels on every observation, which each
// request paid once for itself and once per store call. The exposition is what prom-client's Histogram
// writes: per series, its cumulative buckets, +Inf, sum and count.
import type { Registry } from './promClient.js';

type Labels = Readonly<Record<string, string>>;

/** One series of a histogram. Callers keep it, so that an observation looks nothing up. */
export class HistogramSeries {
  /** Observations per bucket, each counted in the first bucket that holds it; beyond the last, in none. */
  readonly #perBucket: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly bounds: readonly number[],
    readonly labels: Labels,
    /** A series is exposed from its first observation on, as prom-client's are. */
    private readonly firstObserved: (series: HistogramSeries) => void,
  ) {
    this.#perBucket = bounds.map(() => 0);
  }

  observe(value: number): void {
    if (this.count === 0) this.firstObserved(this);
    let bucket = 0;
    while (bucket < this.bounds.length && value > (this.bounds[bucket] as number)) bucket += 1;
    if (bucket < this.bounds.length) this.#perBucket[bucket] = (this.#perBucket[bucket] as number) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** The count at or below each bound, as the exposition gives it. */
  cumulative(): number[] {
    let total = 0;
    return this.#perBucket.map((count) => (total += count));
  }
}

interface Sample {
  metricName: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

export class TalliedHistogram<Label extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** By label values. */
  readonly #series = new Map<string, HistogramSeries>();
  /** In the order first observed, which is the exposition's order. */
  readonly #observed: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly Label[],
    readonly buckets: readonly number[],
    registry: Registry,
  ) {
    // The registry asks a metric for its name, help, type and values (get), nothing else.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  series(labels: Readonly<Record<Label, string>>): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join('\n');
    let series = this.#series.get(key);
    if (series === undefined) {
      series = new HistogramSeries(this.buckets, { ...labels }, (observed) => this.#observed.push(observed));
      this.#series.set(key, series);
    }
    return series;
  }

  observedSeries(): readonly HistogramSeries[] {
    return this.#observed;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const series of this.#observed) values.push(...this.#samples(series));
    const { name, help, type, aggregator } = this;
    return Promise.resolve({ name, help, type, aggregator, values });
  }

  #samples(series: HistogramSeries): Sample[] {
    const { labels, sum, count } = series;
    const bucket = `${this.name}_bucket`;
    const cumulative = series.cumulative();
    return [
      ...series.bounds.map((le, i) => ({ metricName: bucket, labels: { le, ...labels }, value: cumulative[i] as number })),
      { metricName: bucket, labels: { le: '+Inf', ...labels }, value: count },
      { metricName: `${this.name}_sum`, labels, value: sum },
      { metricName: `${this.name}_count`, labels, value: count },
    ];
  }
}
