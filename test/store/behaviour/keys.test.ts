// Accounts and their API keys, on every backend: found by digest while active, revoked once, and a key
// revoked by one process refused by every other from its next lookup.
import { describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, keyDigest } from '../../../src/keys.js';
import { newCaller } from '../../support/caller.js';
import { message, nextTurn, onEveryBackend } from '../../support/storeSuite.js';

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
      const listing = await t.store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
      expect(listing).toStrictEqual({
        id: expect.any(Number),
        account: 'acme',
        displayPrefix: `${key.slice(0, 7)}…`,
        createdAt: expect.any(String),
      });
      expect(await t.store.keys.findActiveKey(keyDigest(key))).toStrictEqual({
        keyId: listing.id,
        accountId: account.id,
        accountName: 'acme',
        digest: keyDigest(key),
      });
      expect(await t.store.keys.findActiveKey(keyDigest(generateKey()))).toBeUndefined();
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      expect(await t.store.keys.findActiveKey(keyDigest(key))).toBeUndefined();
      expect(await t.store.keys.revokeKeyById(listing.id)).toBe('already_revoked');
      expect(await t.store.keys.revokeKeyById(999)).toBe('missing');
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(generateKey()))).toBe('missing');
      expect(await t.store.keys.listKeys()).toStrictEqual([{ ...listing, revokedAt: expect.any(String) }]);
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
      await t.store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
      const other = await t.another();
      expect(await other.keys.findActiveKey(keyDigest(key))).toMatchObject({ accountId: account.id });
      expect(await t.store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
      await nextTurn();
      expect(await other.keys.findActiveKey(keyDigest(key))).toBeUndefined();
    });
  });
});
