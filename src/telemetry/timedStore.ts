// A Store that times every call of the Store it wraps, by method name: for writes, until their commit. The
// SQL stays in the backends.
import type { QuotaStore } from '../store/quotas.js';
import type {
  DeliveryStore,
  KeyStore,
  MessageStore,
  OrderStore,
  PetStore,
  Store,
  TelemetryStore,
} from '../store/store.js';
import type { TalliedHistogram } from './talliedHistogram.js';

type Call = (...args: never[]) => unknown;

export function timedStore(store: Store, duration: TalliedHistogram<'method'>): Store {
  /** `part` with each of `methods` timed; `satisfies` on each list keeps it complete. */
  const timed = <Part extends object>(part: Part, methods: readonly (keyof Part & string)[]): Part => {
    const wrapped = {} as Record<string, Call>;
    for (const method of methods) {
      const series = duration.series({ method });
      const observeSince = (started: number) => series.observe((performance.now() - started) / 1000);
      // Not an async function: an answer given at once stays one (the reads on a request's way), and one
      // that waits makes one promise less. An answer given at once makes no closure either.
      wrapped[method] = (...args) => {
        const started = performance.now();
        let result: unknown;
        try {
          result = (part[method] as Call).apply(part, args);
        } catch (error) {
          observeSince(started);
          throw error;
        }
        if (!(result instanceof Promise)) {
          observeSince(started);
          return result;
        }
        return (result as Promise<unknown>).then(
          (value) => {
            observeSince(started);
            return value;
          },
          (error: unknown) => {
            observeSince(started);
            throw error;
          },
        );
      };
    }
    return wrapped as Part;
  };
  const ready = timed(store, ['isReady']);
  return {
    orders: timed(store.orders, every<OrderStore>()('listOrders', 'listOrderPage', 'cancelOrder')),
    pets: timed(store.pets, every<PetStore>()('findPet')),
    messages: timed(store.messages, every<MessageStore>()('enqueueMessage', 'enqueueMessageOnce', 'findMessage')),
    keys: timed(store.keys, every<KeyStore>()('findActiveKey')),
    telemetry: timed(
      store.telemetry,
      every<TelemetryStore>()(
        'countOrdersByStatus',
        'countQueuedMessages',
        'countMessagesByStatus',
        'oldestQueuedAt',
        'recordDeprecatedCalls',
      ),
    ),
    delivery: timed(store.delivery, every<DeliveryStore>()('claimMessages', 'settleMessages', 'deleteSettledMessages')),
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
