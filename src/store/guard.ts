// How compose.ts runs a repository's call: its failure, thrown or rejected, becomes the store's own (the
// backend's classifier, such as StoreUnavailableError), and always reaches the caller as a rejected promise,
// never as a throw. A read on a request's way gives an answer the repository had at once, at once.
import type { Awaitable } from '../awaitable.js';

export interface Guard {
  /** A read on a request's way (a key, the list, a page): an answer there at once is given at once. */
  read<T>(work: () => Awaitable<T>): Awaitable<T>;
  /** Any other call: its answer as a promise. */
  call<T>(work: () => Awaitable<T>): Promise<T>;
}

export function guardWith(storeErrorFor: (error: unknown) => unknown): Guard {
  const failed = (error: unknown): never => {
    throw storeErrorFor(error);
  };
  const read = <T>(work: () => Awaitable<T>): Awaitable<T> => {
    try {
      const result = work();
      return result instanceof Promise ? result.catch(failed) : result;
    } catch (error) {
      return Promise.resolve(error).then(failed);
    }
  };
  return { read, call: (work) => Promise.resolve(read(work)) };
}
