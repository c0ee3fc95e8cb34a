// What the delivery tells the rest of the server: the metrics (DeliveryObserver) and the log (DeliveryLog). The
// dispatcher, the settler and the retention take them from here, beneath all three.
import type { AttemptOutcome } from './endpoint.js';

/** What the dispatcher tells the metrics and the log. */
export interface DeliveryObserver {
  attempted(outcome: AttemptOutcome): void;
  /** `seconds` from the message's acceptance to its delivery. */
  delivered(seconds: number): void;
}

export interface DeliveryLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
