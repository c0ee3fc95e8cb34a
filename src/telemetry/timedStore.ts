// A Store that times every call of the Store it wraps, by method name: for writes, until their commit. The
// SQL stays in the backends.
import type { QuotaStore } from '../store/quotas.js';
import type {
  DeliveryStore,
  EventDeliveryStore,
  KeyStore,
  MessageStore,
  OrderStore,
  PetStore,
  Store,
  TelemetryStore,
  WebhookStore,
} from '../store/store.js';
import type { TalliedHistogram } from './talliedHistogram.js';

type Call = (...args: never[]) => unknown;

export function timedStore(store: Store, duration: TalliedHistogram<'method'>): Store {
  /** `part` with each of `methods` timed; `satisfies` on each list keeps it complete. */
  const timed = <Part extends object>(part: Part, methods: readonly (keyof Part & string)[]): Part => {
    const wrapped = {} as Record<string, Call>;
    for (const method of methods) {
      const series = duration.series({ method });
      const observeSince = (started: number) => () => series.observe((performance.now() - started) / 1000);
      // A store's call fails only by rejecting (store/guard.ts); an answer given at once is timed and given
      // at once, as the reads on a request's way are.
      wrapped[method] = (...args) => {
        const observe = observeSince(performance.now());
        const result = (part[method] as Call).apply(part, args);
        if (result instanceof Promise) return result.finally(observe);
        observe();
        return result;
      };
    }
    return wrapped as Part;
  };
  const ready = timed(store, ['isReady']);
  return {
    orders: timed(store.orders, every<OrderStore>()('listOrders', 'listOrderPage', 'cancelOrder')),
    pets: timed(store.pets, every<PetStore>()('findPet')),
    messages: timed(store.messages, every<MessageStore>()('enqueueMessage', 'enqueueMessageOnce', 'findMessage')),
    keys: timed(store.keys, every<KeyStore>()('findActiveKey', 'recordKeyUses')),
    webhooks: timed(
      store.webhooks,
      every<WebhookStore>()(
        'createEndpoint',
        'listEndpoints',
        'findEndpoint',
        'updateEndpoint',
        'deleteEndpoint',
        'rotateSecret',
        'listDeliveries',
        'replayEvents',
      ),
    ),
    telemetry: timed(
      store.telemetry,
      every<TelemetryStore>()(
        'countOrdersByStatus',
        'countQueuedMessages',
        'countMessagesByStatus',
        'oldestQueuedAt',
        'countEndpointsByStatus',
        'pendingEvents',
        'recordDeprecatedCalls',
      ),
    ),
    delivery: timed(store.delivery, every<DeliveryStore>()('claimMessages', 'settleMessages', 'deleteSettledMessages')),
    eventDelivery: timed(store.eventDelivery, every<EventDeliveryStore>()('claimEndpoints', 'settleEndpoint', 'deleteEventsBefore')),
    ...(store.quotas && { quotas: timed(store.quotas, every<QuotaStore>()('lease')) }),
    isReady: () => ready.isReady(),
    close: () => store.close(),
  };
}

/** Every method name of `Part`: a list that leaves one out fails `tsc`. */
function every<Part>() {
  return <const Listed extends readonly (keyof Part & string)[]>(
    ...methods: Exclude<keyof Part, Listed[number]> extends never ? Listed : never
  ): Listed => methods;
}
