// A worker's part of /metrics with several workers (WORKERS>1): it gives the primary its own metrics when
// asked, and answers a scrape with what the primary gathered from them all (gathering.ts), so that every
// scrape shows the whole service whichever worker it reaches. The store's gauges are read here, once: every
// worker reads the same database, and a sum would multiply them.
import { apiError } from '../contract/errorBody.js';
import { ApiError } from '../serving/errors.js';
import {
  isMessage,
  type MetricFamily,
  type MetricsGathered,
  type MetricsWanted,
  type Snapshot,
  type SnapshotWanted,
} from '../workerMessages.js';
import type { Metrics } from './metrics.js';
import { Registry } from './promClient.js';

/** The primary is gone (the worker exits with it) or could not be told: the scrape cannot be answered. */
const PRIMARY_GONE = apiError('service_unavailable', 'The server is stopping: its metrics cannot be gathered', {
  'Retry-After': '1',
});

/**
 * `metrics`, whose scrape answers the service's metrics, gathered by the primary; and answers its asks.
 * `onError` hears of this worker's own metrics that could not be read: the primary then counts it by its
 * last answer.
 */
export function scrapedAcrossWorkers(metrics: Metrics, onError: (error: unknown) => void): Metrics {
  const scrapes = new Map<number, { resolve(gathered: MetricsGathered): void; reject(error: Error): void }>();
  let lastScrape = 0;
  const tell = (message: MetricsWanted | Snapshot, failed: (error: Error) => void = () => {}) =>
    process.send?.(message, undefined, undefined, (error: Error | null) => {
      if (error) failed(error);
    });
  process.on('message', (message: unknown) => {
    if (isMessage<SnapshotWanted>(message, 'snapshotWanted')) {
      metrics.ownFamilies().then((own) => tell({ snapshot: message.snapshotWanted, ...own }), onError);
    } else if (isMessage<MetricsGathered>(message, 'metricsGathered')) {
      scrapes.get(message.metricsGathered)?.resolve(message);
      scrapes.delete(message.metricsGathered);
    }
  });
  process.on('disconnect', () => {
    for (const scrape of scrapes.values()) scrape.reject(new ApiError(PRIMARY_GONE));
    scrapes.clear();
  });
  const gathered = () =>
    new Promise<MetricsGathered>((resolve, reject) => {
      if (!process.connected) throw new ApiError(PRIMARY_GONE);
      const scrape = (lastScrape += 1);
      scrapes.set(scrape, { resolve, reject });
      tell({ metricsWanted: scrape }, () => {
        scrapes.delete(scrape);
        reject(new ApiError(PRIMARY_GONE));
      });
    });
  return {
    ...metrics,
    scrape: async () => {
      const { service, process: processes } = await gathered();
      return `${await exposition(service)}\n${await metrics.storeGauges.metrics()}\n${await exposition(processes)}`;
    },
  };
}

/** The exposition text of families that are values only, as prom-client writes its own. */
function exposition(families: readonly MetricFamily[]): Promise<string> {
  const registry = new Registry();
  for (const family of families) {
    const metric = { name: family.name, help: family.help, type: family.type, get: () => Promise.resolve(family) };
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }
  return registry.metrics();
}
