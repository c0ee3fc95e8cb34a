// A key's last use (issue 42): noted as requests are answered, written in the background at most once per
// key per 15 minutes by each server, and listed as lastUsedAt. The writes are counted by the database
// itself (a trigger), on the run's backend.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_USE_INTERVAL_MS } from '../../src/http/keyUses.js';
import { rawRequest } from '../support/http.js';
import { createKey, startServer, type TestServer } from '../support/server.js';
import { type PastTheStore, storeBackend } from '../support/storeBackends.js';

let server: TestServer;
let database: PastTheStore;
/** The server's clock: the test moves it. */
let clock: Date;

beforeEach(async () => {
  clock = new Date('2027-01-04T09:00:00.000Z');
  server = await startServer({ now: () => clock });
  database = storeBackend(server.database.kind).pastTheStore(server.database);
  await database.execute(`CREATE TABLE key_use_writes (key_id integer, at text)`);
  await database.execute(
    server.database.kind === 'sqlite'
      ? `CREATE TRIGGER count_key_use AFTER UPDATE OF last_used_at ON api_keys
         BEGIN INSERT INTO key_use_writes VALUES (new.id, new.last_used_at); END`
      : `CREATE FUNCTION count_key_use() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN INSERT INTO key_use_writes VALUES (new.id, new.last_used_at); RETURN new; END $$;
         CREATE TRIGGER count_key_use AFTER UPDATE OF last_used_at ON api_keys
         FOR EACH ROW EXECUTE FUNCTION count_key_use()`,
  );
});
afterEach(() => server.close());

const list = (key: string) => rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });
const writes = () => database.rows<{ key_id: number; at: string }>(`SELECT key_id, at FROM key_use_writes ORDER BY at, key_id`);
const lastUses = async () => (await server.store.keys.listKeys()).map(({ id, lastUsedAt }) => ({ id, lastUsedAt }));

/** Once the server has written what it noted: it does so in the background, so the test waits for it. */
async function written(count: number) {
  while ((await writes()).length < count) await new Promise((resolve) => setTimeout(resolve, 10));
  return writes();
}

describe("a key's last use", () => {
  it('is written once per key for any number of uses within 15 minutes, then again at the first use after', async () => {
    const [first, second] = [await createKey(server.store), await createKey(server.store)];
    expect(await lastUses()).toEqual([{ id: first.keyId }, { id: second.keyId }]);
    await Promise.all(Array.from({ length: 20 }, () => list(first.key)));
    await list(second.key);
    const at = clock.toISOString();
    expect(await written(2)).toEqual([
      { key_id: first.keyId, at },
      { key_id: second.keyId, at },
    ]);
    // Any number of uses later within the interval: no other write.
    clock = new Date(clock.getTime() + KEY_USE_INTERVAL_MS - 1);
    for (let i = 0; i < 10; i++) expect((await list(first.key)).status).toBe(200);
    // The first use after it is written; a write of the uses before it would have come first.
    clock = new Date(clock.getTime() + 1);
    await list(first.key);
    const later = clock.toISOString();
    expect(await written(3)).toEqual([
      { key_id: first.keyId, at },
      { key_id: second.keyId, at },
      { key_id: first.keyId, at: later },
    ]);
    expect(await lastUses()).toEqual([
      { id: first.keyId, lastUsedAt: later },
      { id: second.keyId, lastUsedAt: at },
    ]);
  });

  it('is not moved by a key refused as not active; a key refused only for its scope did use it', async () => {
    const revoked = await createKey(server.store);
    await server.store.keys.revokeKeyById(revoked.keyId);
    expect((await list(revoked.key)).status).toBe(401);
    // Written after whatever the refusal would have written: the uses of each turn are written in order.
    const scopeless = await createKey(server.store, 'acme', []);
    expect((await list(scopeless.key)).status).toBe(403);
    expect((await written(1)).map(({ key_id }) => key_id)).toEqual([scopeless.keyId]);
  });
});
