// A Store that times every call of the Store it wraps, by method name. The SQL stays in store/sqlite.
import type { Histogram } from './promClient.js';
import type { Store } from '../store/store.js';

type Method = Exclude<keyof Store, 'close'>;

/** Every method of Store but close; `satisfies` and the check below keep the list complete. */
const TIMED_METHODS = [
  'listOrders',
  'cancelOrder',
  'enqueueMessage',
  'enqueueMessageOnce',
  'findPet',
  'findActiveKey',
  'isReady',
  'countOrdersByStatus',
  'countQueuedMessages',
  'recordDeprecatedCalls',
] as const satisfies readonly Method[];
// Fails to compile when Store gains a method that is not listed.
const everyMethodListed: Exclude<Method, (typeof TIMED_METHODS)[number]> extends never ? true : never = true;
void everyMethodListed;

export function timedStore(store: Store, duration: Histogram<'method'>): Store {
  const timed = { close: () => store.close() } as Store;
  for (const method of TIMED_METHODS) {
    const call = (store[method] as (...args: unknown[]) => unknown).bind(store);
    const series = duration.labels({ method });
    const observe = (seconds: number) => series.observe(seconds);
    (timed as unknown as Record<Method, (...args: unknown[]) => unknown>)[method] = (...args) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let result: unknown;
      try {
        result = call(...args);
      } catch (error) {
        observe(seconds());
        throw error;
      }
      // A write settles at its commit (group commit): that wait is part of its time.
      if (result instanceof Promise) return result.finally(() => observe(seconds()));
      observe(seconds());
      return result;
    };
  }
  return timed;
}
