// Scrapes /metrics as Prometheus would, reads it with the strict parser, and picks out samples.
import { expect } from 'vitest';
import { rawRequest } from './http.js';
import { type MetricFamily, parsePrometheusText, type Sample } from './prometheusText.js';

export type Scrape = Map<string, MetricFamily>;

export async function scrape(metricsUrl: string, token?: string): Promise<Scrape> {
  const response = await rawRequest(
    metricsUrl,
    token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  );
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(response.text);
}

/** Every sample of every family, with the family it is in. */
export function allSamples(families: Scrape): (Sample & { family: MetricFamily })[] {
  return [...families.values()].flatMap((family) => family.samples.map((sample) => ({ ...sample, family })));
}

/** The value of the sample with exactly these labels, or 0 when there is none yet. */
export function valueOf(families: Scrape, name: string, labels: Record<string, string> = {}): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const sample = allSamples(families).find(
    (candidate) =>
      candidate.name === name && JSON.stringify(Object.entries(candidate.labels).sort()) === wanted,
  );
  return sample?.value ?? 0;
}
