// Delivery in one server process: the dispatcher, when an endpoint is set, and the retention's sweeps
// either way. The app wakes the dispatcher as soon as a message is queued in this process.
import type { MessageStore, Store } from '../store/store.js';
import { UNAUTHORIZED } from '../store/store.js';
import { CONCURRENT_ATTEMPTS, Dispatcher } from './dispatcher.js';
import type { DeliveryLog, DeliveryObserver } from './ports.js';
import { EndpointClient } from './endpoint.js';
import { Retention } from './retention.js';
import type { DeliverySettings } from './settings.js';

export interface Delivery {
  /** A message was queued: the dispatcher claims it now. */
  readonly queued: () => void;
  /** Stops claiming, lets the attempts in flight end, and records what came of them. */
  close(): Promise<void>;
}

export function startDelivery(
  store: Store,
  settings: DeliverySettings,
  log: DeliveryLog,
  observer: DeliveryObserver,
): Delivery {
  const retention = new Retention(store.delivery, settings.retentionMs, log);
  retention.start();
  const { endpoint } = settings;
  if (endpoint === undefined) return { queued: () => {}, close: () => retention.stop() };
  const client = new EndpointClient(endpoint, settings.timeoutMs, CONCURRENT_ATTEMPTS);
  const dispatcher = new Dispatcher({
    store: store.delivery,
    client,
    policy: settings.retry,
    timeoutMs: settings.timeoutMs,
    observer,
    log,
  });
  dispatcher.start();
  return {
    queued: () => dispatcher.wake(),
    close: async () => {
      await Promise.all([dispatcher.stop(), retention.stop()]);
      client.close();
    },
  };
}

/** `messages`, calling `queued` after each message it queued (committed), not after a replay or a refusal. */
export function tellingQueued(messages: MessageStore, queued: () => void): MessageStore {
  return {
    enqueueMessage: (message, caller) =>
      messages.enqueueMessage(message, caller).then((outcome) => {
        if (outcome !== UNAUTHORIZED) queued();
        return outcome;
      }),
    enqueueMessageOnce: (message, idempotency, caller) =>
      messages.enqueueMessageOnce(message, idempotency, caller).then((outcome) => {
        if (outcome.outcome === 'queued') queued();
        return outcome;
      }),
    findMessage: (messageId, caller) => messages.findMessage(messageId, caller),
  };
}
