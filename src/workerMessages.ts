// What a worker and its primary (workers.ts) tell each other over the cluster's channel, and the signals
// on which either stops.
import type { QuotaLease, QuotaLeaseRequest } from './store/quotas.js';

/** From a worker: it listens, and so serves. */
export const WORKER_READY = 'store-orders:listening';

/** From the primary: stop gracefully, as on this signal. */
export interface StopMessage {
  stop: NodeJS.Signals;
}

/**
 * The signals on which a server, or the primary of the workers, stops gracefully. SIGHUP (a terminal that
 * closes) is one: there is no reload, and its default would end the process with no stop at all.
 */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const satisfies readonly NodeJS.Signals[];

/** A metric as prom-client's getMetricsAsJSON gives it: what a worker's metrics are on the channel. */
export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  values: MetricSample[];
}

export interface MetricSample {
  /** A histogram's `_bucket`, `_sum` or `_count`; the family's name when absent. */
  metricName?: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

/** From a worker that serves a scrape: the whole service's metrics, please, for the scrape with this id. */
export interface MetricsWanted {
  metricsWanted: number;
}

/** From the primary: the service's metrics, summed over the workers, for the scrape with this id. */
export interface MetricsGathered {
  metricsGathered: number;
  service: MetricFamily[];
  process: MetricFamily[];
}

/** From the primary: this worker's own metrics, please, for the gathering with this number. */
export interface SnapshotWanted {
  snapshotWanted: number;
}

/** From a worker: its own metrics, for that gathering. */
export interface Snapshot {
  snapshot: number;
  service: MetricFamily[];
  process: MetricFamily[];
}

/** From a worker: a lease of the request quotas' count, which the primary keeps for every worker. */
export interface QuotaLeaseWanted {
  quotaLeaseWanted: number;
  request: QuotaLeaseRequest;
}

/** From the primary: the lease asked for with this number. */
export interface QuotaLeased {
  quotaLeased: number;
  lease: QuotaLease;
}

/** What `message` is, if it is one of these; the channel carries anything. */
export function isMessage<Message extends object>(message: unknown, key: keyof Message): message is Message {
  return typeof message === 'object' && message !== null && typeof (message as Record<PropertyKey, unknown>)[key] === 'number';
}
