// What a worker and its primary (workers.ts) tell each other over the cluster's channel, and the signals
// on which either stops.

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
