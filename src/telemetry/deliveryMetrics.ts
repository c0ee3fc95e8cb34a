// The delivery's instruments: what the message and event dispatchers tell (attempts, time to delivery),
// and the gauges of the messages and the accounts' events read from the store at scrape time.
import type { DeliveryObserver, EventDeliveryObserver } from '../delivery/ports.js';
import { ATTEMPT_OUTCOMES } from '../delivery/endpoint.js';
import {
  ENDPOINT_STATUSES,
  MESSAGE_STATUSES,
  type PendingEvents,
  type TelemetryStore,
  WEBHOOK_EVENT_TYPES,
} from '../store/store.js';
import { Counter, Gauge, type Registry } from './promClient.js';
import { TalliedHistogram } from './talliedHistogram.js';

/** Attempts by outcome, each series there from 0; the time from acceptance to delivery. */
export function deliveryMetrics(registry: Registry): DeliveryObserver {
  const attempts = new Counter({
    name: 'store_orders_message_delivery_attempts_total',
    help: 'Attempts to deliver a message to the endpoint, by outcome: delivered (2xx), http_error (any other answer), timeout, connection_error.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  const delivered = new TalliedHistogram(
    'store_orders_message_delivery_seconds',
    'Time from accepting a message (its 202) to the endpoint answering 2xx to its delivery.',
    [],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
    registry,
  ).series({});
  return {
    attempted: (outcome) => attempts.inc({ outcome }),
    delivered: (seconds) => delivered.observe(seconds),
  };
}

/** Attempts by event type and outcome, each series there from 0; the time from the change to delivery. */
export function eventDeliveryMetrics(registry: Registry): EventDeliveryObserver {
  const attempts = new Counter({
    name: 'store_orders_webhook_attempts_total',
    help: 'Attempts to deliver an event to an endpoint an account registered, by event type and outcome: delivered (2xx), http_error (any other answer), timeout, connection_error.',
    labelNames: ['event_type', 'outcome'] as const,
    registers: [registry],
  });
  for (const eventType of WEBHOOK_EVENT_TYPES) {
    for (const outcome of ATTEMPT_OUTCOMES) attempts.inc({ event_type: eventType, outcome }, 0);
  }
  const delivered = new TalliedHistogram(
    'store_orders_webhook_delivery_seconds',
    'Time from the change an event reports (its commit) to an endpoint answering 2xx to its delivery.',
    [],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
    registry,
  ).series({});
  return {
    attempted: (eventType, outcome) => attempts.inc({ event_type: eventType, outcome }),
    delivered: (seconds) => delivered.observe(seconds),
  };
}

/** The accounts' endpoints by status, and the events still to send to them, read at scrape time. */
export function observeEvents(storeGauges: Registry, store: TelemetryStore): void {
  new Gauge({
    name: 'store_orders_webhook_endpoints',
    help: 'The webhook endpoints accounts registered, by state (enabled, disabled), read at scrape time.',
    labelNames: ['state'] as const,
    registers: [storeGauges],
    async collect() {
      try {
        const counts = await store.countEndpointsByStatus();
        for (const state of ENDPOINT_STATUSES) this.set({ state }, counts[state]);
      } catch {
        this.reset();
      }
    },
  });
  let pending: Promise<PendingEvents> | undefined;
  /** Both gauges of a scrape from one read. */
  const pendingEvents = () => {
    pending ??= store.pendingEvents().finally(() => setImmediate(() => (pending = undefined)));
    return pending;
  };
  new Gauge({
    name: 'store_orders_webhook_events_pending',
    help: 'Events still to send to an enabled webhook endpoint, one per endpoint and event, read at scrape time.',
    registers: [storeGauges],
    async collect() {
      try {
        this.set((await pendingEvents()).count);
      } catch {
        this.reset();
      }
    },
  });
  new Gauge({
    name: 'store_orders_oldest_pending_webhook_event_age_seconds',
    help: 'How long ago the oldest event still to send to an enabled webhook endpoint happened (0 when none is), read at scrape time.',
    registers: [storeGauges],
    async collect() {
      try {
        const { oldestAt } = await pendingEvents();
        this.set(oldestAt === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldestAt)) / 1000));
      } catch {
        this.reset();
      }
    },
  });
}

export function observeMessages(storeGauges: Registry, store: TelemetryStore): void {
  new Gauge({
    name: 'store_orders_messages',
    help: 'Messages in the store by state (queued, delivered, failed), read at scrape time.',
    labelNames: ['state'] as const,
    registers: [storeGauges],
    async collect() {
      try {
        const counts = await store.countMessagesByStatus();
        for (const state of MESSAGE_STATUSES) this.set({ state }, counts[state]);
      } catch {
        this.reset();
      }
    },
  });
  new Gauge({
    name: 'store_orders_oldest_queued_message_age_seconds',
    help: 'How long ago the oldest message still queued was accepted (0 when none is), read at scrape time.',
    registers: [storeGauges],
    async collect() {
      try {
        const oldest = await store.oldestQueuedAt();
        this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
      } catch {
        this.reset();
      }
    },
  });
}
