// What the operations and the CLI need from storage, in the domain's words, one interface per aggregate
// (orderStore.ts, petStore.ts, messageStore.ts, keyStore.ts, webhookStore.ts, telemetryStore.ts, on
// vocabulary.ts): no SQL,
// no HTTP, no driver's error codes (a failure that passes is StoreUnavailableError, unavailable.ts).
// compose.ts builds it from a backend's repositories (backend.ts); open.ts opens it (backends.ts).
import type { KeyAdmin, KeyStore } from './keyStore.js';
import type { DeliveryStore, MessageAdmin, MessageStore } from './messageStore.js';
import type { OrderAdmin, OrderStore } from './orderStore.js';
import type { PetAdmin, PetStore } from './petStore.js';
import type { QuotaStore } from './quotas.js';
import type { TelemetryAdmin, TelemetryStore } from './telemetryStore.js';
import type { EventDeliveryStore, WebhookAdmin, WebhookStore } from './webhookStore.js';

export * from './vocabulary.js';
export * from './orderStore.js';
export * from './petStore.js';
export * from './keyStore.js';
export * from './messageStore.js';
export * from './telemetryStore.js';
export * from './webhookStore.js';

/** `exists`: the backup's file was already there and is left as it was. */
export type BackupOutcome = 'written' | 'exists';

/** What the server depends on: each operation is given only the aggregate it uses. */
export interface Store {
  readonly orders: OrderStore;
  readonly pets: PetStore;
  readonly messages: MessageStore;
  readonly keys: KeyStore;
  readonly webhooks: WebhookStore;
  readonly telemetry: TelemetryStore;
  /** The queue as the servers deliver it. */
  readonly delivery: DeliveryStore;
  /** The endpoints' events as the servers deliver them. */
  readonly eventDelivery: EventDeliveryStore;
  /** The request quotas' count, where the database keeps it (see QuotaStore). */
  readonly quotas?: QuotaStore;
  /** Whether the database answers now (the readiness probe). */
  isReady(): Promise<boolean>;
  /** Lets go of the database; lists still streaming end first. */
  close(): Promise<void>;
}

/** What the operator's CLI needs on top: creating things the API cannot create. */
export interface AdminStore extends Store {
  readonly orders: OrderStore & OrderAdmin;
  readonly pets: PetStore & PetAdmin;
  readonly messages: MessageStore & MessageAdmin;
  readonly keys: KeyStore & KeyAdmin;
  readonly webhooks: WebhookStore & WebhookAdmin;
  readonly telemetry: TelemetryStore & TelemetryAdmin;
  /** What the start-up log line tells about the database (never a password). */
  describe(): Record<string, string | boolean>;
  /** A consistent copy of the whole database into a new file, taken while others write (a file's backend). */
  backup?(file: string): Promise<BackupOutcome>;
}
