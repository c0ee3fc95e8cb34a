// The store behaviour suite's common set-up (test/store/behaviour/, one file per aggregate): each file's
// tests run on every backend of storeBackends.ts, each test on a new database, and are skipped where no
// database of a backend can be made. Each store opened on the database stands for one more process.
import { afterEach, beforeEach, describe } from 'vitest';
import type { StoreOptions } from '../../src/store/open.js';
import { type AdminStore, type NewMessage, type OrderList, UNAUTHORIZED } from '../../src/store/store.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { callerFor } from './caller.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS, type StoreBackend } from './storeBackends.js';

export interface StoreFixture {
  backend: StoreBackend;
  /** The test's database. */
  scratch: ScratchDatabase;
  /** The test's own process's store on it. */
  store: AdminStore;
  /** Another process on the same database: a store of its own, closed after the test. */
  another(options?: StoreOptions): Promise<AdminStore>;
  /** The test's process started again, with `options`: its store closed, and a new one in its place. */
  restart(options?: StoreOptions): Promise<AdminStore>;
}

/** Defines `suite` once for each backend, under `title` (where `$kind` names the backend). */
export function onEveryBackend(title: string, suite: (t: StoreFixture) => void): void {
  describe.each(STORE_BACKENDS)(title, (backend) => {
    const others: AdminStore[] = [];
    const t = {
      backend,
      async another(options = {}) {
        const other = await t.scratch.open(options);
        others.push(other);
        return other;
      },
      async restart(options = {}) {
        await t.store.close();
        t.store = await t.scratch.open(options);
        return t.store;
      },
    } as StoreFixture;

    beforeEach(async ({ skip }) => {
      if (!backend.available) skip(backend.unavailable);
      t.scratch = await scratchDatabase(backend.kind);
      t.store = await t.scratch.open({ create: true });
    });

    afterEach(async () => {
      if (!backend.available) return;
      for (const other of others.splice(0)) await other.close();
      await t.store.close();
      await t.scratch.drop();
    });

    suite(t);
  });
}

/** A change made by another process is seen from the next turn of the event loop (SQLite's rule). */
export const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * What `call` answers once the store is not busy. A busy store wrote nothing, and a client tries again, as the
 * server's 503 tells it to: on a loaded machine a burst may outlast a bound of the store (the wait for one of
 * the pool's connections), and a race's outcome, not that bound, is what a test of it is about. A busy answer
 * to a write that was in fact done would still fail such a test: the retry would find the write made.
 */
export async function retriedWhileBusy<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError && error.reason === 'busy')) throw error;
    }
  }
}

/** A message to send; the account is the caller's, whose key the send takes (test/support/caller.ts). */
export const message = (id: string, createdAt = '2026-01-01T00:00:00.000Z'): NewMessage => ({
  id,
  message: `text of ${id}`,
  createdAt,
});

/** The order list, as a caller with an active key of its own reads it. */
export async function listOf(store: AdminStore): Promise<OrderList> {
  const list = await store.orders.listOrders(await callerFor(store));
  if (list === UNAUTHORIZED) throw new Error('the caller of the test is not authorized');
  return list;
}
