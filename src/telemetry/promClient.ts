// The parts of prom-client the server uses, each loaded from its own file. prom-client's index loads every
// part at once, the default process metrics among them, a cost at every cold start for what only the first
// scrape needs (docs/operating.md's Metrics section has the figure). The types still come from the package's own declarations.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;

export type Registry = PromClient.Registry;
export type Counter<T extends string> = PromClient.Counter<T>;
export type Histogram<T extends string> = PromClient.Histogram<T>;

/** Loaded on first use, by the first scrape (see processRegistry in metrics.ts). */
export function collectDefaultMetrics(register: Registry): void {
  (require('prom-client/lib/defaultMetrics') as typeof PromClient.collectDefaultMetrics)({ register });
}
