// The streamed order list on its own: bounded readers, reused rather than reopened, given back however a
// stream ends, and never reading ahead of its consumer.
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrderListReaders, ROWS_PER_TURN } from '../../src/store/sqlite/orderStream.js';
import { openStore } from '../../src/store/open.js';
import type { AdminStore } from '../../src/store/store.js';
import { countTurns } from '../support/turns.js';

let folder: string;
let dbPath: string;
let store: AdminStore;
let readers: OrderListReaders;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-stream-'));
  dbPath = join(folder, 'store.db');
  store = await openStore({ kind: 'sqlite', path: dbPath });
  await store.orders.importOrders(Array.from({ length: 20_000 }, (_, i) => ({ petId: i + 1, quantity: 1 })));
  readers = new OrderListReaders(dbPath, 2);
});

afterEach(async () => {
  readers.close();
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

const turns = (count: number) =>
  Array.from({ length: count }).reduce<Promise<void>>(
    (previous) => previous.then(() => new Promise((resolve) => setImmediate(resolve))),
    Promise.resolve(),
  );

/** Every order's JSON text the stream gives, in order. */
async function readAll(stream: Readable): Promise<string[]> {
  const orders: string[] = [];
  for await (const batch of stream) orders.push(...(batch as string[]));
  return orders;
}

/** This process's open handles on the database's files. */
const databaseHandles = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dbPath);
    } catch {
      return false;
    }
  }).length;

describe('OrderListReaders', () => {
  it('streams every order as JSON text, in id order', async () => {
    const orders = (await readAll(readers.stream() as Readable)).map((text) => JSON.parse(text) as { id: number });
    expect(orders).toHaveLength(20_000);
    expect(orders.map(({ id }) => id)).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1));
  });

  it('reads no further ahead than one chunk while nobody consumes the stream', async () => {
    const stream = readers.stream() as Readable;
    stream.pause();
    stream.read(0);
    await turns(50);
    // One batch of 2,000 orders; the whole list is ten of them.
    expect(stream.readableLength).toBe(1);
    stream.destroy();
  });

  it('reads at most ROWS_PER_TURN rows in a turn of the event loop, however many lists are read at once', async () => {
    const eight = new OrderListReaders(dbPath, 8);
    const loop = countTurns();
    const rowsInTurn = new Map<number, number>();
    const lists = Array.from({ length: 8 }, () => eight.stream() as Readable);
    for (const list of lists) {
      list.on('data', (batch: string[]) => rowsInTurn.set(loop.turn, (rowsInTurn.get(loop.turn) ?? 0) + batch.length));
    }
    await Promise.all(lists.map((list) => new Promise((resolve) => list.on('end', resolve))));
    loop.stop();
    eight.close();

    expect([...rowsInTurn.values()].reduce((sum, rows) => sum + rows, 0)).toBe(8 * 20_000);
    expect(Math.max(...rowsInTurn.values())).toBeLessThanOrEqual(ROWS_PER_TURN);
  });

  it('refuses a stream beyond its capacity, and takes one again once a stream is given back', async () => {
    const first = readers.stream() as Readable;
    const second = readers.stream() as Readable;
    expect(readers.stream()).toBeUndefined();
    expect(readers.inUse).toBe(2);

    await readAll(first);
    expect(readers.inUse).toBe(1);
    second.destroy();
    expect(readers.inUse).toBe(0);
    const third = readers.stream();
    expect(third).toBeDefined();
    third?.destroy();
  });

  it('reuses its connections: many streams, ended or abandoned, hold no more file handles than its capacity', async () => {
    await readAll(readers.stream() as Readable);
    await readAll(readers.stream() as Readable);
    const atCapacity = databaseHandles();
    for (let i = 0; i < 20; i++) {
      const stream = readers.stream() as Readable;
      if (i % 2 === 0) await readAll(stream);
      else stream.destroy();
    }
    expect(databaseHandles()).toBe(atCapacity);
    expect(readers.inUse).toBe(0);
  });

  it('does not hold a snapshot once a stream is abandoned', async () => {
    const stream = readers.stream() as Readable;
    stream.read(0);
    await turns(5);
    // A commit after the stream's snapshot began: a checkpoint can copy it back only once nobody reads older.
    await store.pets.addPet('Rex');
    const checkpointComplete = () => {
      const other = new Database(dbPath);
      try {
        const [{ log, checkpointed }] = other.pragma('wal_checkpoint(PASSIVE)') as [
          { log: number; checkpointed: number },
        ];
        return checkpointed === log;
      } finally {
        other.close();
      }
    };
    expect(checkpointComplete()).toBe(false);
    stream.destroy();
    expect(checkpointComplete()).toBe(true);
  });
});
