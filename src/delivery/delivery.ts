// Delivery in one server process: the message dispatcher, when the operator's endpoint is set, the event
// dispatcher for the endpoints accounts register, and the retention's sweeps of both. The app wakes the
// message dispatcher as soon as a message is queued in this process.
import type { SpanRecorder } from '../spans.js';
import type { MessageStore, Store } from '../store/store.js';
import { UNAUTHORIZED } from '../store/store.js';
import { guardedLookup } from './addresses.js';
import { CONCURRENT_ATTEMPTS, Dispatcher } from './dispatcher.js';
import { EndpointClient, WebhookSender } from './endpoint.js';
import { EventDispatcher } from './eventDispatcher.js';
import type { DeliveryLog, DeliveryObserver, EventDeliveryObserver } from './ports.js';
import { eventSweep, messageSweep, Retention } from './retention.js';
import type { ClientEndpointSettings, DeliverySettings } from './settings.js';

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
  observers: { messages: DeliveryObserver; events: EventDeliveryObserver; spans?: SpanRecorder | undefined },
  endpoints: ClientEndpointSettings,
): Delivery {
  const events = startEventDelivery(store, settings, log, observers, endpoints);
  const retention = new Retention(messageSweep(store.delivery), settings.retentionMs, log);
  retention.start();
  const { endpoint } = settings;
  if (endpoint === undefined) {
    return { queued: () => {}, close: () => Promise.all([events.close(), retention.stop()]).then(() => undefined) };
  }
  const client = new EndpointClient(endpoint, settings.timeoutMs, CONCURRENT_ATTEMPTS);
  const dispatcher = new Dispatcher({
    store: store.delivery,
    client,
    policy: settings.retry,
    timeoutMs: settings.timeoutMs,
    observer: observers.messages,
    log,
    spans: observers.spans,
  });
  dispatcher.start();
  return {
    queued: () => dispatcher.wake(),
    close: async () => {
      await Promise.all([dispatcher.stop(), retention.stop(), events.close()]);
      client.close();
    },
  };
}

/** The accounts' events: their dispatcher, on the message delivery's schedule and time-out, and their retention. */
function startEventDelivery(
  store: Store,
  settings: DeliverySettings,
  log: DeliveryLog,
  { events: observer, spans }: { events: EventDeliveryObserver; spans?: SpanRecorder | undefined },
  endpoints: ClientEndpointSettings,
): { close(): Promise<void> } {
  const sender = new WebhookSender(settings.timeoutMs, CONCURRENT_ATTEMPTS, guardedLookup(endpoints.addresses));
  const dispatcher = new EventDispatcher({
    store: store.eventDelivery,
    sender,
    addresses: endpoints.addresses,
    policy: { retry: settings.retry, disableAfterMs: endpoints.disableAfterMs },
    timeoutMs: settings.timeoutMs,
    observer,
    log,
    sendTraceparent: endpoints.sendTraceparent,
    spans,
  });
  const retention = new Retention(eventSweep(store.eventDelivery), endpoints.retentionMs, log);
  dispatcher.start();
  retention.start();
  return {
    close: async () => {
      await Promise.all([dispatcher.stop(), retention.stop()]);
      sender.close();
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
