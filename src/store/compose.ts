// The store, built once for every backend from its repositories: each call's failures become the store's
// own (the backend's classifier), ids beyond what a number holds exactly name nothing, and an
// Idempotency-Key is handled the same way everywhere (one request per key in flight in this process, the
// expired keys purged now and then). A backend gives only what differs: its statements.
import type {
  Awaitable,
  DeprecatedCallRepository,
  KeyRepository,
  MessageRepository,
  OrderRepository,
  PetRepository,
  QuotaRepository,
  Repositories,
} from './backend.js';
import { KeysInFlight } from './keysInFlight.js';
import { EXAMINED_PER_CLAIM, SETTLED_STATUSES } from './messageQueue.js';
import type { QuotaStore } from './quotas.js';
import {
  type AdminStore,
  type CancelOutcome,
  type DeliveryStore,
  IDEMPOTENCY_KEY_TTL_MS,
  type IdempotentOutcome,
  isStoreId,
  type KeyAdmin,
  type KeyStore,
  type Message,
  type MessageAdmin,
  type MessageStore,
  type OrderAdmin,
  type OrderPageQuery,
  type OrderStatus,
  type OrderStore,
  type PetAdmin,
  type PetStore,
  type Principal,
  type ShipOutcome,
  type TelemetryAdmin,
  type TelemetryStore,
  UNAUTHORIZED,
  type Unauthorized,
} from './store.js';

/** Runs a repository's call now, with its failures (thrown or rejected) as the store's own. */
type Guard = <T>(work: () => T | Promise<T>) => Promise<T>;

/**
 * As a Guard, for a read on a request's way: an answer there at once is given at once, a failure thrown.
 * It runs `work(argument)`: a closure instead would be a new function on every request.
 */
type ReadGuard = <T, A>(work: (argument: A) => Awaitable<T>, argument: A) => Awaitable<T>;

/** Expired keys are refused by age anyway: purging them only bounds the table, so it need not be often. */
const PURGE_KEYS_EVERY_MS = 60_000;

export function composeStore(repositories: Repositories): AdminStore {
  const storeErrorFor = (error: unknown) => repositories.storeErrorFor(error);
  const guard = guardWith(storeErrorFor);
  const read = readGuardWith(storeErrorFor);
  const checked = checkedFirst(repositories.keys);
  return {
    orders: orderFront(repositories.orders, guard, read, checked),
    pets: petFront(repositories.pets, guard),
    messages: messageFront(repositories.messages, guard),
    keys: keyFront(repositories.keys, guard, read),
    telemetry: telemetryFront(repositories, guard),
    delivery: deliveryFront(repositories.messages, guard),
    ...(repositories.quotas && { quotas: quotaFront(repositories.quotas, guard) }),
    isReady: () => guard(() => repositories.isReady()),
    close: () => guard(() => repositories.close()),
    describe: () => repositories.describe(),
    ...(repositories.backup && { backup: repositories.backup.bind(repositories) }),
  };
}

/** A synchronous answer (most of SQLite's) settles without a detour through an async function. */
function guardWith(storeErrorFor: (error: unknown) => unknown): Guard {
  return <T>(work: () => T | Promise<T>): Promise<T> => {
    try {
      const result = work();
      if (!(result instanceof Promise)) return Promise.resolve(result);
      return result.catch((error: unknown) => {
        throw storeErrorFor(error);
      });
    } catch (error) {
      const failure = storeErrorFor(error);
      return Promise.resolve().then(() => {
        throw failure;
      });
    }
  };
}

function readGuardWith(storeErrorFor: (error: unknown) => unknown): ReadGuard {
  return <T, A>(work: (argument: A) => Awaitable<T>, argument: A): Awaitable<T> => {
    let result: Awaitable<T>;
    try {
      result = work(argument);
    } catch (error) {
      throw storeErrorFor(error);
    }
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      throw storeErrorFor(error);
    });
  };
}

/** A caller's call that no repository call checks the key of: the key is looked up instead. */
type CheckedFirst = <T>(caller: Principal, work: () => T | Promise<T>) => T | Unauthorized | Promise<T | Unauthorized>;

function checkedFirst(keys: KeyRepository): CheckedFirst {
  return (caller, work) => {
    const key = keys.findActiveKey(caller.keyDigest);
    if (key instanceof Promise) return key.then((active) => (active ? work() : UNAUTHORIZED));
    return key ? work() : UNAUTHORIZED;
  };
}

const MISSING = 'missing' as const;

function orderFront(orders: OrderRepository, guard: Guard, read: ReadGuard, checked: CheckedFirst): OrderStore & OrderAdmin {
  const list = (keyDigest: Buffer) => orders.list(keyDigest);
  const page = (query: OrderPageQuery) => orders.page(query);
  return {
    listOrders: (caller) => read(list, caller.keyDigest),
    listOrderPage: (query) => read(page, query),
    cancelOrder: (orderId, caller) => {
      if (!isStoreId(orderId)) return guard(() => checked(caller, () => MISSING));
      return guard(() => orders.move(orderId, 'pending', 'cancelled', cancelOutcome, caller.keyDigest));
    },
    addOrder: (order) => guard(() => orders.add(order)),
    importOrders: (all) => guard(() => orders.addAll(all)),
    shipOrder: (orderId) => {
      if (!isStoreId(orderId)) return Promise.resolve(MISSING);
      return guard(() => orders.move(orderId, 'pending', 'shipped', shipOutcome));
    },
    findOrder: (orderId) => (isStoreId(orderId) ? guard(() => orders.find(orderId)) : Promise.resolve(undefined)),
    listAllOrders: (filter) => guard(() => orders.listAll(filter)),
  };
}

function cancelOutcome(found: OrderStatus | Unauthorized | undefined): CancelOutcome | Unauthorized {
  if (found === 'pending') return 'cancelled';
  if (found === UNAUTHORIZED) return found;
  return found === 'shipped' ? 'shipped' : MISSING;
}

/** The operator's move: no key is checked. */
function shipOutcome(found: OrderStatus | Unauthorized | undefined): ShipOutcome {
  if (found === 'pending') return 'shipped';
  return found === undefined || found === UNAUTHORIZED ? MISSING : 'not_pending';
}

function petFront(pets: PetRepository, guard: Guard): PetStore & PetAdmin {
  return {
    findPet: (petId) => (isStoreId(petId) ? guard(() => pets.find(petId)) : Promise.resolve(undefined)),
    addPet: (name) => guard(() => pets.add(name)),
  };
}

function messageFront(messages: MessageRepository, guard: Guard): MessageStore & MessageAdmin {
  const keysInFlight = new KeysInFlight();
  let lastPurgeMs = 0;
  /** Housekeeping beside the request: its answer never waits for it, nor fails with it. */
  const purgeNowAndThen = (createdAt: string, oldestKept: string) => {
    const nowMs = Date.parse(createdAt);
    if (nowMs - lastPurgeMs < PURGE_KEYS_EVERY_MS) return;
    lastPurgeMs = nowMs;
    guard(() => messages.purgeKeys(oldestKept)).catch(() => undefined);
  };
  return {
    enqueueMessage: (message, caller) =>
      guard(() => messages.enqueue(message, queuedMessage(message), caller.keyDigest)),
    enqueueMessageOnce: (message, idempotency, caller) =>
      keysInFlight.run(caller.accountId, idempotency.key, (): Promise<IdempotentOutcome> => {
        const oldestKept = new Date(Date.parse(message.createdAt) - IDEMPOTENCY_KEY_TTL_MS).toISOString();
        purgeNowAndThen(message.createdAt, oldestKept);
        const queued = queuedMessage(message);
        const answer = { message: queued, body: JSON.stringify(queued) };
        return guard(() => messages.enqueueOnce(message, idempotency, oldestKept, answer, caller.keyDigest));
      }),
    findMessage: (messageId, caller) => guard(() => messages.find(messageId, caller.accountId)),
    listMessages: (filter = {}) => guard(() => messages.list(filter)),
    retryMessage: (messageId) => guard(() => messages.retry(messageId)),
  };
}

function deliveryFront(messages: MessageRepository, guard: Guard): DeliveryStore {
  return {
    claimMessages: (claim) => guard(() => messages.claim(claim, EXAMINED_PER_CLAIM)),
    settleMessages: (owner, settlements) =>
      settlements.length === 0 ? Promise.resolve() : guard(() => messages.settle(owner, settlements)),
    deleteSettledMessages: async (before, limit) => {
      let deleted = 0;
      for (const status of SETTLED_STATUSES) {
        if (deleted < limit) deleted += await guard(() => messages.deleteSettled(status, before, limit - deleted));
      }
      return deleted;
    },
  };
}

function queuedMessage({ id, message, createdAt }: { id: string; message: string; createdAt: string }): Message {
  return { id, message, status: 'queued', createdAt };
}

function keyFront(keys: KeyRepository, guard: Guard, read: ReadGuard): KeyStore & KeyAdmin {
  const findActiveKey = (digest: Buffer) => keys.findActiveKey(digest);
  const revoke = (keyId: number | undefined) =>
    keyId !== undefined && isStoreId(keyId) ? guard(() => keys.revoke(keyId)) : Promise.resolve(MISSING);
  return {
    findActiveKey: (digest) => read(findActiveKey, digest),
    createAccount: (name) => guard(() => keys.createAccount(name)),
    findAccount: (name) => guard(() => keys.findAccount(name)),
    createKey: (accountId, digest, prefix) => guard(() => keys.createKey(accountId, digest, prefix)),
    listKeys: () => guard(() => keys.listKeys()),
    revokeKeyById: (keyId) => revoke(keyId),
    revokeKeyByDigest: (digest) => guard(() => keys.findKeyId(digest)).then(revoke),
  };
}

function telemetryFront(
  { orders, messages, deprecatedCalls }: { orders: OrderRepository; messages: MessageRepository; deprecatedCalls: DeprecatedCallRepository },
  guard: Guard,
): TelemetryStore & TelemetryAdmin {
  return {
    countOrdersByStatus: () => guard(() => orders.countByStatus()),
    countQueuedMessages: () => guard(() => messages.countQueued()),
    countMessagesByStatus: () => guard(() => messages.countByStatus()),
    oldestQueuedAt: () => guard(() => messages.oldestQueuedAt()),
    recordDeprecatedCalls: (calls) => guard(() => deprecatedCalls.record(calls)),
    listDeprecatedCalls: () => guard(() => deprecatedCalls.list()),
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
        guard(() => quotas.forget(windowStart - windowSeconds * 1000)).catch(() => undefined);
      }
      return guard(() => quotas.lease(request));
    },
  };
}
