// An API caller for tests that make the store's API calls themselves (to cancel an order while setting a
// test up, say): an account of its own with an active key, as the pipeline would hand it to an operation.
import { generateKey, keyDigest } from '../../src/keys.js';
import type { AdminStore, Principal } from '../../src/store/store.js';
import { addKey } from './server.js';

/** One per store: made on first use. */
const callers = new WeakMap<AdminStore, Promise<Principal>>();

export function callerFor(store: AdminStore): Promise<Principal> {
  let caller = callers.get(store);
  if (!caller) {
    caller = newCaller(store);
    callers.set(store, caller);
  }
  return caller;
}

/** A caller with a key of its own, which a test may revoke. */
export async function newCaller(store: AdminStore, accountName = 'test-setup'): Promise<Principal> {
  const key = generateKey();
  await addKey(store, key, accountName);
  const active = await store.keys.findActiveKey(keyDigest(key));
  if (!active) throw new Error('the key just made is not active');
  const { digest, ...principal } = active;
  return { ...principal, keyDigest: digest };
}
