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

/** Every method of each part of the Store, by part: `every` fails `tsc` when one is left out. */
const METHODS = {
  orders: every<OrderStore>()('listOrders', 'listOrderPage', 'cancelOrder'),
  pets: every<PetStore>()('findPet'),
  messages: every<MessageStore>()('enqueueMessage', 'enqueueMessageOnce', 'findMessage'),
  keys: every<KeyStore>()('findActiveKey', 'recordKeyUses'),
  webhooks: every<WebhookStore>()(
    'createEndpoint',
    'listEndpoints',
    'findEndpoint',
    'updateEndpoint',
    'deleteEndpoint',
    'rotateSecret',
    'listDeliveries',
    'replayEvents',
  ),
  telemetry: every<TelemetryStore>()(
    'countOrdersByStatus',
    'countQueuedMessages',
    'countMessagesByStatus',
    'oldestQueuedAt',
    'countEndpointsByStatus',
    'pendingEvents',
    'recordDeprecatedCalls',
  ),
  delivery: every<DeliveryStore>()('claimMessages', 'settleMessages', 'deleteSettledMessages'),
  eventDelivery: every<EventDeliveryStore>()('claimEndpoints', 'settleEndpoint', 'deleteEventsBefore'),
  quotas: every<QuotaStore>()('lease'),
} as const;

/** The name of every method of the Store's parts: what a span of a store call may be named (spanExport.ts). */
export const STORE_METHODS: ReadonlySet<string> = new Set(Object.values(METHODS).flat());

export function timedStore(store: Store, duration: TalliedHistogram<'method'>): Store {
  /** `part` with each of `methods` timed. */
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
    orders: timed(store.orders, METHODS.orders),
    pets: timed(store.pets, METHODS.pets),
    messages: timed(store.messages, METHODS.messages),
    keys: timed(store.keys, METHODS.keys),
    webhooks: timed(store.webhooks, METHODS.webhooks),
    telemetry: timed(store.telemetry, METHODS.telemetry),
    delivery: timed(store.delivery, METHODS.delivery),
    eventDelivery: timed(store.eventDelivery, METHODS.eventDelivery),
    ...(store.quotas && { quotas: timed(store.quotas, METHODS.quotas) }),
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
