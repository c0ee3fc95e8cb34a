// The seam's part for the telemetry: the counts the metrics read, and the calls to deprecated operations.
import type { MessageStatus } from './messageStore.js';
import type { OrderStatus } from './vocabulary.js';
import type { EventCounts } from './webhookStore.js';

/** Calls of one deprecated operation by one account: when they started and stopped, and how many. */
export interface DeprecatedCalls {
  operationId: string;
  accountId: number;
  firstCallAt: string;
  lastCallAt: string;
  count: number;
}

export type DeprecatedCallListing = Omit<DeprecatedCalls, 'accountId'> & { account: string };

/** What the metrics read at scrape time (the endpoints' counts among them), and the calls to deprecated operations. */
export interface TelemetryStore extends EventCounts {
  countOrdersByStatus(): Promise<Record<OrderStatus, number>>;
  /** Messages waiting in the queue (status `queued`). */
  countQueuedMessages(): Promise<number>;
  countMessagesByStatus(): Promise<Record<MessageStatus, number>>;
  /** When the oldest message still queued was accepted; undefined when none is. */
  oldestQueuedAt(): Promise<string | undefined>;
  /** Adds the calls to those already recorded, all in one transaction. */
  recordDeprecatedCalls(calls: readonly DeprecatedCalls[]): Promise<void>;
}

export interface TelemetryAdmin {
  listDeprecatedCalls(): Promise<DeprecatedCallListing[]>;
}
