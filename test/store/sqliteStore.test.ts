import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, keyDigest } from '../../src/keys.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openDatabase, synchronousLevel } from '../../src/store/sqlite/open.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqliteStore.js';

let folder: string;
let dbPath: string;
let store: SqliteStore;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-store-'));
  dbPath = join(folder, 'nested', 'store.db');
  store = openSqliteStore(dbPath, { synchronous: 'FULL' });
});
afterEach(async () => {
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('opening the database', () => {
  it('creates the folder, uses WAL and applies every migration', () => {
    const db = new Database(dbPath, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  });

  it('reads synchronous back as configured on the first boot and on every later boot', async () => {
    await store.close();
    for (const [mode, level] of [
      ['FULL', 2],
      ['NORMAL', 1],
      ['EXTRA', 3],
      ['FULL', 2],
    ] as const) {
      const db = openDatabase(dbPath, { synchronous: mode });
      expect(synchronousLevel(db), mode).toBe(level);
      db.close();
    }
    store = openSqliteStore(dbPath, { synchronous: 'FULL' });
  });

  it('refuses a database whose schema is newer than this build', async () => {
    await store.close();
    const db = new Database(dbPath);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openDatabase(dbPath, { synchronous: 'FULL' })).toThrow(/newer than this build/);
    const reset = new Database(dbPath);
    reset.pragma(`user_version = ${MIGRATIONS.length}`);
    reset.close();
    store = openSqliteStore(dbPath, { synchronous: 'FULL' });
  });

  it('refuses a file that is not a database', () => {
    const junk = join(folder, 'junk.db');
    writeFileSync(junk, 'this is not sqlite '.repeat(100));
    expect(() => openDatabase(junk, { synchronous: 'FULL' })).toThrow(/not a database/);
  });
});

describe('orders', () => {
  it("gives the list's version from the file itself: every process on it reads the same, a restart repeats none", async () => {
    await store.orders.addOrder({ petId: 1, quantity: 1 });
    const other = openSqliteStore(dbPath, { synchronous: 'FULL' });
    const seen: string[] = [];
    try {
      const first = (await store.orders.listOrders()).version;
      seen.push(first);
      expect((await other.orders.listOrders()).version).toBe(first);
      // A message is no change to the list; an order added by the other process is.
      const account = await store.keys.createAccount('acme');
      const createdAt = '2026-01-01T00:00:00.000Z';
      await store.messages.enqueueMessage({ id: 'msg_1', accountId: account.id, message: 'hi', createdAt });
      expect((await store.orders.listOrders()).version).toBe(first);
      await other.orders.addOrder({ petId: 2, quantity: 1 });
      // Another connection's commit is seen from the next turn of the event loop (connection.ts).
      await new Promise((resolve) => setImmediate(resolve));
      const second = (await store.orders.listOrders()).version;
      expect(second).not.toBe(first);
      expect((await other.orders.listOrders()).version).toBe(second);
      seen.push(second);
    } finally {
      await other.close();
    }
    await store.close();
    store = openSqliteStore(dbPath, { synchronous: 'FULL' });
    expect((await store.orders.listOrders()).version).toBe(seen.at(-1));
    await store.orders.addOrder({ petId: 3, quantity: 1 });
    expect(seen).not.toContain((await store.orders.listOrders()).version);
  });

  it('lists orders that are not cancelled, by id, leaving out absent fields', async () => {
    const a = await store.orders.addOrder({ petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true });
    const b = await store.orders.addOrder({ petId: 2, quantity: 1 });
    const c = await store.orders.addOrder({ status: 'shipped' });
    await store.orders.cancelOrder(b.id);
    expect(await store.orders.listOrders()).toMatchObject({
      orders: [
        { id: a.id, petId: 1, quantity: 2, shipDate: '2026-01-01T00:00:00.000Z', complete: true },
        { id: c.id, complete: false },
      ],
    });
  });

  it('cancels only a pending order, and tells shipped from missing', async () => {
    const pending = await store.orders.addOrder({ petId: 1, quantity: 1 });
    const shipped = await store.orders.addOrder({ petId: 1, quantity: 1, status: 'shipped' });
    expect(await store.orders.cancelOrder(pending.id)).toBe('cancelled');
    expect(await store.orders.cancelOrder(pending.id)).toBe('missing');
    expect(await store.orders.cancelOrder(shipped.id)).toBe('shipped');
    expect((await store.orders.findOrder(shipped.id))?.status).toBe('shipped');
    expect(await store.orders.cancelOrder(999)).toBe('missing');
    expect(await store.orders.cancelOrder(2 ** 60)).toBe('missing');
  });

  it('ships only a pending order', async () => {
    const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
    expect(await store.orders.shipOrder(order.id)).toBe('shipped');
    expect(await store.orders.shipOrder(order.id)).toBe('not_pending');
    expect(await store.orders.shipOrder(999)).toBe('missing');
  });

  it('imports all orders in one transaction, or none', async () => {
    expect(await store.orders.importOrders([{ petId: 1, quantity: 1 }, { petId: 2 }])).toBe(2);
    // A CHECK constraint failing on the second row rolls back the first.
    await expect(
      store.orders.importOrders([
        { petId: 3, quantity: 1 },
        { petId: 4, quantity: 0 },
      ]),
    ).rejects.toThrow();
    expect((await store.orders.listAllOrders()).map((order) => order.petId)).toEqual([1, 2]);
  });
});

describe('keys', () => {
  it('stores no 8-character piece of any issued key', async () => {
    const account = await store.keys.createAccount('acme');
    const keys = Array.from({ length: 200 }, () => generateKey());
    for (const key of keys) await store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
    // Closing checkpoints the WAL into the file, so the whole database is in these bytes.
    await store.close();
    const raw = readFileSync(dbPath).toString('latin1');
    for (const key of keys) {
      for (let at = 0; at + 8 <= key.length; at++) expect(raw.includes(key.slice(at, at + 8))).toBe(false);
    }
    store = openSqliteStore(dbPath, { synchronous: 'FULL' });
  });

  it('finds an active key by digest, and not once it is revoked', async () => {
    const account = await store.keys.createAccount('acme');
    const key = generateKey();
    const listing = await store.keys.createKey(account.id, keyDigest(key), displayPrefix(key));
    expect(await store.keys.findActiveKey(keyDigest(key))).toMatchObject({ keyId: listing.id, accountId: account.id });
    expect(await store.keys.revokeKeyByDigest(keyDigest(key))).toBe('revoked');
    expect(await store.keys.findActiveKey(keyDigest(key))).toBeUndefined();
    expect(await store.keys.revokeKeyById(listing.id)).toBe('already_revoked');
    expect(await store.keys.revokeKeyById(999)).toBe('missing');
    expect(await store.keys.listKeys()).toEqual([
      {
        id: listing.id,
        account: 'acme',
        displayPrefix: `${key.slice(0, 7)}…`,
        createdAt: expect.any(String),
        revokedAt: expect.any(String),
      },
    ]);
  });
});

describe('messages', () => {
  it('are stored with their account and listed in arrival order', async () => {
    const account = await store.keys.createAccount('acme');
    await store.messages.enqueueMessage({
      id: 'msg_a',
      accountId: account.id,
      message: 'one',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await store.messages.enqueueMessage({
      id: 'msg_b',
      accountId: account.id,
      message: 'two',
      createdAt: '2026-01-01T00:00:01.000Z',
    });
    // As JSON text: the CLI prints these records, so their field order is part of what it shows.
    const listed = (id: string, message: string, createdAt: string) => ({
      id,
      account: 'acme',
      message,
      status: 'queued',
      createdAt,
    });
    expect(JSON.stringify(await store.messages.listMessages())).toBe(
      JSON.stringify([
        listed('msg_a', 'one', '2026-01-01T00:00:00.000Z'),
        listed('msg_b', 'two', '2026-01-01T00:00:01.000Z'),
      ]),
    );
  });
});

describe('accounts', () => {
  it('finds an account by name with its id and creation time, and nothing for an unknown name', async () => {
    const account = await store.keys.createAccount('acme');
    const { id, createdAt } = account;
    expect(await store.keys.findAccount('acme')).toStrictEqual({ id, name: 'acme', createdAt });
    expect(await store.keys.findAccount('globex')).toBeUndefined();
  });
});

describe('group commit', () => {
  const message = (accountId: number, id: string) => ({
    id,
    accountId,
    message: id,
    createdAt: '2026-01-01T00:00:00.000Z',
  });

  it('settles concurrent writes only once they are committed, visible to another connection', async () => {
    const account = await store.keys.createAccount('acme');
    const writes = Array.from({ length: 200 }, (_, i) => store.messages.enqueueMessage(message(account.id, `msg_${i}`)));
    const reader = new Database(dbPath, { readonly: true });
    // Not one of them is on disk before the batch commits.
    expect(reader.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0);
    await Promise.all(writes);
    expect(reader.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(200);
    reader.close();
  });

  it('rolls back a failing write alone; the rest of its batch commits', async () => {
    const account = await store.keys.createAccount('acme');
    const [first, duplicate, third] = await Promise.allSettled([
      store.messages.enqueueMessage(message(account.id, 'msg_same')),
      store.messages.enqueueMessage(message(account.id, 'msg_same')),
      store.messages.enqueueMessage(message(account.id, 'msg_other')),
    ]);
    expect([first.status, duplicate.status, third.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_same', 'msg_other']);
  });

  it('orders the writes of one batch as they were made: the second cancel of an order is missing', async () => {
    const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
    const outcomes = await Promise.all([store.orders.cancelOrder(order.id), store.orders.cancelOrder(order.id)]);
    expect(outcomes).toEqual(['cancelled', 'missing']);
  });
});
