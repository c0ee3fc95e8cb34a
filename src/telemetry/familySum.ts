// Metric families added up series by series, as the primary of several workers answers a scrape: every
// worker's counters and histograms summed, so the service reads as one; and each worker's own process
// metrics set side by side, told apart by a `worker` label.
import type { MetricFamily, MetricSample } from '../workerMessages.js';

interface SummedFamily {
  name: string;
  help: string;
  type: string;
  /** By sample name and labels, in the order first seen. */
  samples: Map<string, MetricSample>;
}

/** A sample's identity: its name and its labels, whatever their order. */
function sampleKey(family: MetricFamily, { metricName, labels }: MetricSample): string {
  const names = Object.keys(labels).sort();
  return JSON.stringify([metricName ?? family.name, ...names.map((name) => [name, labels[name]])]);
}

export class FamilySum {
  readonly #families = new Map<string, SummedFamily>();

  /** Adds each sample of `families` to the same series' total. */
  add(families: readonly MetricFamily[]): this {
    for (const family of families) {
      const summed = this.#family(family);
      for (const sample of family.values) {
        const key = sampleKey(family, sample);
        const total = summed.samples.get(key);
        if (total) total.value += sample.value;
        else summed.samples.set(key, { ...sample, labels: { ...sample.labels } });
      }
    }
    return this;
  }

  /** A sum of its own, that starts from this one's totals. */
  copy(): FamilySum {
    return new FamilySum().add(this.families());
  }

  families(): MetricFamily[] {
    return [...this.#families.values()].map(({ name, help, type, samples }) => ({
      name,
      help,
      type,
      values: [...samples.values()].map((sample) => ({ ...sample })),
    }));
  }

  #family({ name, help, type }: MetricFamily): SummedFamily {
    let summed = this.#families.get(name);
    if (summed === undefined) this.#families.set(name, (summed = { name, help, type, samples: new Map() }));
    return summed;
  }
}

/**
 * Each worker's families as one list, every sample labelled with its worker's slot: one family per name,
 * as the exposition format wants.
 */
export function sideBySide(byWorker: readonly { worker: string; families: readonly MetricFamily[] }[]): MetricFamily[] {
  const merged = new Map<string, MetricFamily>();
  for (const { worker, families } of byWorker) {
    for (const { name, help, type, values } of families) {
      let family = merged.get(name);
      if (family === undefined) merged.set(name, (family = { name, help, type, values: [] }));
      for (const sample of values) family.values.push({ ...sample, labels: { ...sample.labels, worker } });
    }
  }
  return [...merged.values()];
}
