// The store, built once for every backend from its repositories: each call's failures become the store's
// own, always as a rejected promise (guard.ts), and ids beyond what a number holds exactly name nothing.
// The orders and the messages have a module each (orderFront.ts, messageFront.ts). A backend gives only
// what differs: its statements.
import type {
  KeyRepository,
  PetRepository,
  EventDeliveryRepository,
  QuotaRepository,
  Repositories,
  WebhookRepository,
} from './backend.js';
import { type Guard, guardWith } from './guard.js';
import type { KeyAdmin, KeyStore, OldKeyEnd, ReplacingKey } from './keyStore.js';
import { deliveryFront, messageFront } from './messageFront.js';
import { orderFront } from './orderFront.js';
import type { PetAdmin, PetStore } from './petStore.js';
import type { QuotaStore } from './quotas.js';
import type { AdminStore } from './store.js';
import type { TelemetryAdmin, TelemetryStore } from './telemetryStore.js';
import { isStoreId } from './vocabulary.js';
import type { EventDeliveryStore, WebhookAdmin, WebhookStore } from './webhookStore.js';

export function composeStore(repositories: Repositories): AdminStore {
  const guard = guardWith((error) => repositories.storeErrorFor(error));
  return {
    orders: orderFront(repositories.orders, repositories.keys, guard),
    pets: petFront(repositories.pets, guard),
    messages: messageFront(repositories.messages, guard),
    keys: keyFront(repositories.keys, guard),
    webhooks: webhookFront(repositories.webhooks, guard),
    telemetry: telemetryFront(repositories, guard),
    delivery: deliveryFront(repositories.messages, guard),
    eventDelivery: eventDeliveryFront(repositories.eventDelivery, guard),
    ...(repositories.quotas && { quotas: quotaFront(repositories.quotas, guard) }),
    isReady: () => guard.call(() => repositories.isReady()),
    close: () => guard.call(() => repositories.close()),
    describe: () => repositories.describe(),
    ...(repositories.backup && { backup: repositories.backup.bind(repositories) }),
  };
}

function petFront(pets: PetRepository, guard: Guard): PetStore & PetAdmin {
  return {
    findPet: (petId) => (isStoreId(petId) ? guard.call(() => pets.find(petId)) : Promise.resolve(undefined)),
    addPet: (name) => guard.call(() => pets.add(name)),
  };
}

function keyFront(keys: KeyRepository, guard: Guard): KeyStore & KeyAdmin {
  const known = (keyId: number | undefined): keyId is number => keyId !== undefined && isStoreId(keyId);
  const revoke = (keyId: number | undefined) =>
    known(keyId) ? guard.call(() => keys.revoke(keyId)) : Promise.resolve('missing' as const);
  const roll = (keyId: number | undefined, newKey: ReplacingKey, oldEnds: OldKeyEnd) =>
    known(keyId) ? guard.call(() => keys.roll(keyId, newKey, oldEnds)) : Promise.resolve({ outcome: 'missing' as const });
  return {
    findActiveKey: (digest) => guard.read(() => keys.findActiveKey(digest)),
    recordKeyUses: (keyIds, at) => guard.call(() => keys.recordUses(keyIds, at)),
    createAccount: (name) => guard.call(() => keys.createAccount(name)),
    findAccount: (name) => guard.call(() => keys.findAccount(name)),
    createKey: (key) => guard.call(() => keys.createKey(key)),
    listKeys: () => guard.call(() => keys.listKeys()),
    revokeKeyById: (keyId) => revoke(keyId),
    revokeKeyByDigest: (digest) => guard.call(() => keys.findKeyId(digest)).then(revoke),
    rollKeyById: (keyId, newKey, oldEnds) => roll(keyId, newKey, oldEnds),
    rollKeyByDigest: (digest, newKey, oldEnds) =>
      guard.call(() => keys.findKeyId(digest)).then((keyId) => roll(keyId, newKey, oldEnds)),
  };
}

function webhookFront(webhooks: WebhookRepository, guard: Guard): WebhookStore & WebhookAdmin {
  return {
    createEndpoint: (...args) => guard.call(() => webhooks.createEndpoint(...args)),
    listEndpoints: (...args) => guard.call(() => webhooks.listEndpoints(...args)),
    findEndpoint: (...args) => guard.call(() => webhooks.findEndpoint(...args)),
    updateEndpoint: (...args) => guard.call(() => webhooks.updateEndpoint(...args)),
    deleteEndpoint: (...args) => guard.call(() => webhooks.deleteEndpoint(...args)),
    rotateSecret: (...args) => guard.call(() => webhooks.rotateSecret(...args)),
    listDeliveries: (...args) => guard.call(() => webhooks.listDeliveries(...args)),
    replayEvents: (...args) => guard.call(() => webhooks.replayEvents(...args)),
    recordAttempt: (...args) => guard.call(() => webhooks.recordAttempt(...args)),
  };
}

function eventDeliveryFront(delivery: EventDeliveryRepository, guard: Guard): EventDeliveryStore {
  return {
    claimEndpoints: (claim) => guard.call(() => delivery.claimEndpoints(claim)),
    settleEndpoint: (owner, settlement) => guard.call(() => delivery.settleEndpoint(owner, settlement)),
    deleteEventsBefore: (before, limit) => guard.call(() => delivery.deleteEventsBefore(before, limit)),
  };
}

function telemetryFront(
  { orders, messages, eventDelivery, deprecatedCalls }: Repositories,
  guard: Guard,
): TelemetryStore & TelemetryAdmin {
  return {
    countEndpointsByStatus: () => guard.call(() => eventDelivery.countEndpointsByStatus()),
    pendingEvents: () => guard.call(() => eventDelivery.pendingEvents()),
    countOrdersByStatus: () => guard.call(() => orders.countByStatus()),
    countQueuedMessages: () => guard.call(() => messages.countQueued()),
    countMessagesByStatus: () => guard.call(() => messages.countByStatus()),
    oldestQueuedAt: () => guard.call(() => messages.oldestQueuedAt()),
    recordDeprecatedCalls: (calls) => guard.call(() => deprecatedCalls.record(calls)),
    listDeprecatedCalls: () => guard.call(() => deprecatedCalls.list()),
  };
}

/** Windows that ended are forgotten now and then, beside a lease, which never waits for it. */
function quotaFront(quotas: QuotaRepository, guard: Guard): QuotaStore {
  let lastForgotten = 0;
  return {
    lease: (request) => {
      const { windowStart, windowSeconds } = request;
      if (windowStart > lastForgotten) {
        lastForgotten = windowStart;
        guard.call(() => quotas.forget(windowStart - windowSeconds * 1000)).catch(() => undefined);
      }
      return guard.call(() => quotas.lease(request));
    },
  };
}
