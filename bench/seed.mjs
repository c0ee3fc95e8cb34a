// A database file for a benchmark: the project's own schema and pragmas, N orders, one account and key.
// `shippedEvery`: every order whose id is a multiple of it is shipped (the pages scenario's 1%, spread evenly
// through the ids); without it every order is pending, as the other scenarios have always had them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayPrefix, generateKey, keyDigest } from '../dist/keys.js';
import { openStore } from '../dist/store/open.js';
import { ALL_SCOPES } from '../dist/store/store.js';

export async function seedDatabase(orderCount, { shippedEvery } = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'store-orders-bench-')), 'store.db');
  const store = await openStore({ kind: 'sqlite', path }, { synchronous: 'FULL', create: true });
  const key = generateKey();
  const account = await store.keys.createAccount('bench');
  await store.keys.createKey({ accountId: account.id, digest: keyDigest(key), displayPrefix: displayPrefix(key), scopes: ALL_SCOPES });
  const batch = [];
  for (let i = 1; i <= orderCount; i++) {
    batch.push({
      petId: (i % 500) + 1,
      quantity: (i % 9) + 1,
      shipDate: '2026-12-01T09:00:00.000Z',
      complete: i % 2 === 0,
      ...(shippedEvery && { status: i % shippedEvery === 0 ? 'shipped' : 'pending' }),
    });
    if (batch.length === 50_000 || i === orderCount) await store.orders.importOrders(batch.splice(0));
  }
  await store.close();
  return { path, key };
}
