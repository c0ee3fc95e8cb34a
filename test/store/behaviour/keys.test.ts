// Accounts and their API keys, on every backend: found by digest while active (neither revoked nor expired),
// revoked once, rolled into a new key, their last use noted, and a key revoked by one process refused by
// every other from its next lookup.
import { describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, keyDigest } from '../../../src/keys.js';
import { ALL_SCOPES, type Principal, type Scopes } from '../../../src/store/store.js';
import { newCaller } from '../../support/caller.js';
import { message, nextTurn, onEveryBackend } from '../../support/storeSuite.js';

/** The fields createKey takes for `key`. */
function newKey(accountId: number, key: string, scopes: Scopes = ALL_SCOPES, expiresAt?: string) {
  return { accountId, digest: keyDigest(key), displayPrefix: displayPrefix(key), scopes, expiresAt };
}

const secondsFromNow = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

onEveryBackend('the $kind store', (t) => {
  describe("an API caller's key, checked by each call made for the caller", () => {
    it('a key revoked by another process: every call answers unauthorized, and nothing is listed, moved or written', async () => {
      const order = await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const caller = await newCaller(t.store, 'acme');
      expect(await (await t.another()).keys.revokeKeyById(caller.keyId)).toBe('revoked');
      await nextTurn();
      const idempotency = { key: 'k1', fingerprint: Buffer.from('k1') };
      expect({
        list: await t.store.orders.listOrders(caller),
        cancel: await t.store.orders.cancelOrder(order.id, caller),
        cancelNoSuchOrder: await t.store.orders.cancelOrder(999, caller),
        cancelBeyondIds: await t.store.orders.cancelOrder(2 ** 60, caller),
        send: await t.store.messages.enqueueMessage(message('msg_1'), caller),
        sendOnce: await t.store.messages.enqueueMessageOnce(message('msg_2'), idempotency, caller),
      }).toStrictEqual({
        list: 'unauthorized',
        cancel: 'unauthorized',
        cancelNoSuchOrder: 'unauthorized',
        cancelBeyondIds: 'unauthorized',
        send: 'unauthorized',
        sendOnce: { outcome: 'unauthorized' },
      });
      expect((await t.store.orders.findOrder(order.id))?.status).toBe('pending');
      expect(await t.store.messages.listMessages()).toEqual([]);
      expect(await t.scratch.rows('SELECT key FROM idempotency_keys')).toEqual([]);
    });

    it("queues a message as the key's account's, whoever else the caller says it is", async () => {
      const acme = await newCaller(t.store, 'acme');
      const globex = await newCaller(t.store, 'globex');
      await t.store.messages.enqueueMessage(message('msg_1'), { ...globex, keyDigest: acme.keyDigest });
      expect((await t.store.messages.listMessages()).map(({ account }) => account)).toEqual(['acme']);
    });
  });

  describe('keys', () => {
    it('finds an active key by digest, and not once it is revoked', async () => {
      const account = await t.store.keys.createAccount('acme');
      const key = generateKey();
      const listing = await t.store.keys.createKey(newKey(account.id, key));
      expect(listing).toStrictEqual({
        id: expect.any(Number),
        account: 'acme',
        displayPrefix: `${key.slice(0, 7)}…`,
        scopes: ALL_SCOPES,
        createdAt: expect.any(String),
      });
      expect(await t.store.keys.findActiveKey(keyDigest(key))).toStrictEqual({
        keyId: listing.id,
        accountId: account.id,
        accountName: 'acme',
        digest: keyDigest(key),
        scopes: ALL_SCOPES,
      });
      expect(await t.store.keys.findActiveKey(keyDigest(generateKey()))).toBeUndefined();
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      expect(await t.store.keys.findActiveKey(keyDigest(key))).toBeUndefined();
      expect(await t.store.keys.revokeKeyById(listing.id)).toBe('already_revoked');
      expect(await t.store.keys.revokeKeyById(999)).toBe('missing');
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(generateKey()))).toBe('missing');
      expect(await t.store.keys.listKeys()).toStrictEqual([{ ...listing, revokedAt: expect.any(String) }]);
    });

    it('keeps the scopes a key is made with, found and listed as made, and another key of the account its own', async () => {
      const account = await t.store.keys.createAccount('acme');
      const [reader, writer] = [generateKey(), generateKey()];
      const scopes = ['orders:read', 'messages:write'] as const;
      const made = await t.store.keys.createKey(newKey(account.id, reader, scopes));
      await t.store.keys.createKey(newKey(account.id, writer, ['orders:write']));
      expect(made.scopes).toEqual(scopes);
      expect((await t.store.keys.findActiveKey(keyDigest(reader)))?.scopes).toEqual(scopes);
      expect((await t.store.keys.findActiveKey(keyDigest(writer)))?.scopes).toEqual(['orders:write']);
      expect((await t.store.keys.listKeys()).map(({ scopes: listed }) => listed)).toEqual([scopes, ['orders:write']]);
    });

    it('an expired key: not found, and every call made for its caller answers unauthorized, with nothing written', async () => {
      const order = await t.store.orders.addOrder({ petId: 1, quantity: 1 });
      const account = await t.store.keys.createAccount('acme');
      const [expired, later] = [generateKey(), generateKey()];
      const listing = await t.store.keys.createKey(newKey(account.id, expired, ALL_SCOPES, secondsFromNow(-1)));
      await t.store.keys.createKey(newKey(account.id, later, ALL_SCOPES, secondsFromNow(3600)));
      expect(listing.expiresAt).toBe(listing.expiresAt && new Date(listing.expiresAt).toISOString());
      expect(await t.store.keys.findActiveKey(keyDigest(expired))).toBeUndefined();
      expect(await t.store.keys.findActiveKey(keyDigest(later))).toMatchObject({ accountId: account.id });
      // As revoked keys are (above): the calls that check the key in their own statement see the expiry too.
      const caller: Principal = { accountId: account.id, accountName: 'acme', keyId: listing.id, keyDigest: keyDigest(expired), scopes: ALL_SCOPES };
      expect({
        list: await t.store.orders.listOrders(caller),
        cancel: await t.store.orders.cancelOrder(order.id, caller),
        send: await t.store.messages.enqueueMessage(message('msg_1'), caller),
        sendOnce: await t.store.messages.enqueueMessageOnce(message('msg_2'), { key: 'k1', fingerprint: Buffer.from('k1') }, caller),
      }).toStrictEqual({ list: 'unauthorized', cancel: 'unauthorized', send: 'unauthorized', sendOnce: { outcome: 'unauthorized' } });
      expect((await t.store.orders.findOrder(order.id))?.status).toBe('pending');
      expect(await t.store.messages.listMessages()).toEqual([]);
    });

    it('rolls a key into a new one of the same account, scopes and expiry, the old one ending at the earlier of its expiry and the one given', async () => {
      const account = await t.store.keys.createAccount('acme');
      const [old, next] = [generateKey(), generateKey()];
      const expiresAt = secondsFromNow(7200);
      const made = await t.store.keys.createKey(newKey(account.id, old, ['orders:read'], expiresAt));
      const replacing = { digest: keyDigest(next), displayPrefix: displayPrefix(next) };
      const rolled = await t.store.keys.rollKeyById(made.id, replacing, { expiresAt: secondsFromNow(3600) });
      expect(rolled).toStrictEqual({
        outcome: 'rolled',
        key: { ...made, id: expect.any(Number), displayPrefix: replacing.displayPrefix, createdAt: expect.any(String) },
        old: { ...made, expiresAt: expect.any(String) },
      });
      if (rolled.outcome !== 'rolled') return;
      expect(rolled.old.expiresAt! < expiresAt).toBe(true);
      expect(await t.store.keys.findActiveKey(keyDigest(next))).toMatchObject({ keyId: rolled.key.id, scopes: ['orders:read'] });
      expect(await t.store.keys.findActiveKey(keyDigest(old))).toMatchObject({ keyId: made.id });
      // Rolled again, for a longer overlap than the key has left: its own expiry stays.
      const again = await t.store.keys.rollKeyByDigest(keyDigest(old), { digest: keyDigest(generateKey()), displayPrefix: 'sok_x…' }, { expiresAt: secondsFromNow(86_400) });
      expect(again.outcome === 'rolled' && again.old.expiresAt).toBe(rolled.old.expiresAt);
      // At once: the old key is revoked.
      const third = generateKey();
      const now = await t.store.keys.rollKeyById(rolled.key.id, { digest: keyDigest(third), displayPrefix: displayPrefix(third) }, 'now');
      expect(now.outcome === 'rolled' && now.old.revokedAt).toEqual(expect.any(String));
      expect(await t.store.keys.findActiveKey(keyDigest(next))).toBeUndefined();
      expect(await t.store.keys.rollKeyById(rolled.key.id, replacing, 'now')).toStrictEqual({ outcome: 'inactive' });
      expect(await t.store.keys.rollKeyById(9999, replacing, 'now')).toStrictEqual({ outcome: 'missing' });
      expect(await t.store.keys.rollKeyByDigest(keyDigest(generateKey()), replacing, 'now')).toStrictEqual({ outcome: 'missing' });
    });

    it('an expired key cannot be rolled', async () => {
      const account = await t.store.keys.createAccount('acme');
      const made = await t.store.keys.createKey(newKey(account.id, generateKey(), ALL_SCOPES, secondsFromNow(-1)));
      const next = generateKey();
      const replacing = { digest: keyDigest(next), displayPrefix: displayPrefix(next) };
      expect(await t.store.keys.rollKeyById(made.id, replacing, 'now')).toStrictEqual({ outcome: 'inactive' });
      expect(await t.store.keys.listKeys()).toHaveLength(1);
    });

    it("notes keys' last use, listed as lastUsedAt", async () => {
      const account = await t.store.keys.createAccount('acme');
      const [first, second] = [
        await t.store.keys.createKey(newKey(account.id, generateKey())),
        await t.store.keys.createKey(newKey(account.id, generateKey())),
      ];
      const at = new Date().toISOString();
      await t.store.keys.recordKeyUses([first.id, second.id], at);
      expect((await t.store.keys.listKeys()).map(({ lastUsedAt }) => lastUsedAt)).toEqual([at, at]);
    });

    it('finds an account by name with its id and creation time, and refuses a second of the same name', async () => {
      const account = await t.store.keys.createAccount('acme');
      expect(await t.store.keys.findAccount('acme')).toStrictEqual(account);
      expect(await t.store.keys.findAccount('globex')).toBeUndefined();
      await expect(t.store.keys.createAccount('acme')).rejects.toThrow();
    });
  });

  describe('across processes', () => {
    it("a key revoked by one process is not found by another's next lookup", async () => {
      const account = await t.store.keys.createAccount('acme');
      const key = generateKey();
      await t.store.keys.createKey(newKey(account.id, key));
      const other = await t.another();
      expect(await other.keys.findActiveKey(keyDigest(key))).toMatchObject({ accountId: account.id });
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      await nextTurn();
      expect(await other.keys.findActiveKey(keyDigest(key))).toBeUndefined();
    });
  });
});
