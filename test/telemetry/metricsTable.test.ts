// docs/operating.md's metrics table names every metric the server registers, each with exactly its labels,
// so that a label added in code cannot go unwritten there.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics, observeStore } from '../../src/telemetry/metrics.js';
import type { TelemetryStore } from '../../src/store/store.js';

/** The table's rows for the project's own metrics: name → the label names its Labels column gives. */
function documented(): Map<string, string[]> {
  const text = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(store_orders_[a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    // The labels are the column's names before any explanation that follows a colon; `none` is none.
    const labels = (cells[3] ?? '').split(':')[0] as string;
    rows.set(name, [...labels.matchAll(/`([a-z_]+)`/g)].map((match) => match[1] as string));
  }
  return rows;
}

describe("the metrics table of docs/operating.md", () => {
  it('lists every metric the server registers, with exactly its labels', () => {
    const metrics = createMetrics();
    observeStore(metrics, {} as TelemetryStore);
    const registered = new Map(
      [...metrics.registry.getMetricsAsArray(), ...metrics.storeGauges.getMetricsAsArray()]
        .map((metric) => {
          const { name, labelNames } = metric as unknown as { name: string; labelNames?: readonly string[] };
          return [name, [...(labelNames ?? [])]] as const;
        }),
    );
    expect(documented()).toEqual(registered);
  });
});
