import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayPrefix, generateKey, keyDigest } from '../../src/keys.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openDatabase, synchronousLevel } from '../../src/store/sqlite/open.js';
import { openStore } from '../../src/store/open.js';
import { ALL_SCOPES, type AdminStore } from '../../src/store/store.js';
import { callerFor } from '../support/caller.js';

let folder: string;
let dbPath: string;
let store: AdminStore;
const openSqliteStore = (path: string) => openStore({ kind: 'sqlite', path });
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-store-'));
  dbPath = join(folder, 'nested', 'store.db');
  store = await openSqliteStore(dbPath);
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
      const db = openDatabase(dbPath, { synchronous: mode, busyTimeoutMs: 5000 });
      expect(synchronousLevel(db), mode).toBe(level);
      db.close();
    }
    store = await openSqliteStore(dbPath);
  });

  it('refuses a database whose schema is newer than this build', async () => {
    await store.close();
    const db = new Database(dbPath);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openDatabase(dbPath, { synchronous: 'FULL', busyTimeoutMs: 5000 })).toThrow(/newer than this build/);
    const reset = new Database(dbPath);
    reset.pragma(`user_version = ${MIGRATIONS.length}`);
    reset.close();
    store = await openSqliteStore(dbPath);
  });

  it('refuses a file that is not a database', () => {
    const junk = join(folder, 'junk.db');
    writeFileSync(junk, 'this is not sqlite '.repeat(100));
    expect(() => openDatabase(junk, { synchronous: 'FULL', busyTimeoutMs: 5000 })).toThrow(/not a database/);
  });
});

describe('keys', () => {
  it('stores no 8-character piece of any issued key', async () => {
    const account = await store.keys.createAccount('acme');
    const keys = Array.from({ length: 200 }, () => generateKey());
    for (const key of keys) await store.keys.createKey({ accountId: account.id, digest: keyDigest(key), displayPrefix: displayPrefix(key), scopes: ALL_SCOPES });
    // Closing checkpoints the WAL into the file, so the whole database is in these bytes.
    await store.close();
    const raw = readFileSync(dbPath).toString('latin1');
    for (const key of keys) {
      for (let at = 0; at + 8 <= key.length; at++) expect(raw.includes(key.slice(at, at + 8))).toBe(false);
    }
    store = await openSqliteStore(dbPath);
  });
});

describe('group commit', () => {
  const message = (id: string) => ({ id, message: id, createdAt: '2026-01-01T00:00:00.000Z' });

  it('settles concurrent writes only once they are committed, visible to another connection', async () => {
    const caller = await callerFor(store);
    const writes = Array.from({ length: 200 }, (_, i) => store.messages.enqueueMessage(message(`msg_${i}`), caller));
    const reader = new Database(dbPath, { readonly: true });
    // Not one of them is on disk before the batch commits.
    expect(reader.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0);
    await Promise.all(writes);
    expect(reader.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(200);
    reader.close();
  });

  it('rolls back a failing write alone; the rest of its batch commits', async () => {
    const caller = await callerFor(store);
    const [first, duplicate, third] = await Promise.allSettled([
      store.messages.enqueueMessage(message('msg_same'), caller),
      store.messages.enqueueMessage(message('msg_same'), caller),
      store.messages.enqueueMessage(message('msg_other'), caller),
    ]);
    expect([first.status, duplicate.status, third.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.messages.listMessages()).map(({ id }) => id)).toEqual(['msg_same', 'msg_other']);
  });

  it('orders the writes of one batch as they were made: the second cancel of an order is missing', async () => {
    const order = await store.orders.addOrder({ petId: 1, quantity: 1 });
    const caller = await callerFor(store);
    const outcomes = await Promise.all([store.orders.cancelOrder(order.id, caller), store.orders.cancelOrder(order.id, caller)]);
    expect(outcomes).toEqual(['cancelled', 'missing']);
  });
});
