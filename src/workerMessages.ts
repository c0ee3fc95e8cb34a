// What a worker and its primary (workers.ts) tell each other over the cluster's channel.

/** From a worker: it listens, and so serves. */
export const WORKER_READY = 'store-orders:listening';

/** From the primary: stop gracefully, as on this signal. */
export interface StopMessage {
  stop: NodeJS.Signals;
}
