// What the delivery tells the rest of the server: the metrics (DeliveryObserver, EventDeliveryObserver) and
// the log (DeliveryLog). The dispatchers, the settler and the retention take them from here, beneath all.
import type { WebhookEventType } from '../store/store.js';
import type { AttemptOutcome } from './endpoint.js';

/** What the dispatcher tells the metrics and the log. */
export interface DeliveryObserver {
  attempted(outcome: AttemptOutcome): void;
  /** `seconds` from the message's acceptance to its delivery. */
  delivered(seconds: number): void;
}

/** What the event dispatcher tells the metrics. */
export interface EventDeliveryObserver {
  attempted(type: WebhookEventType, outcome: AttemptOutcome): void;
  /** `seconds` from the change the event reports to its delivery. */
  delivered(seconds: number): void;
}

export interface DeliveryLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
