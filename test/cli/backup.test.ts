import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/commandLine.js';
import { apiClient } from '../support/http.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { useScratchDatabase } from '../support/storeBackends.js';

const ORDERS = 5_000;
const WRITERS = 4;

const scratch = useScratchDatabase('store-orders-backup-');

async function start(databaseUrl: string, init: boolean): Promise<ServerProcess> {
  const server = await spawnServer({ DATABASE_URL: databaseUrl }, { init });
  scratch.servers.push(server);
  return server;
}

/** Sends messages without pause, each with its own Idempotency-Key, until stopped; keeps what was acknowledged. */
function writeContinuously(baseUrl: string, key: string) {
  const client = apiClient(baseUrl, key);
  const acknowledged: { key: string; id: string }[] = [];
  let writing = true;
  let failure: Error | undefined;
  let flowing: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const started = new Promise<void>((resolve, reject) => {
    flowing = { resolve, reject };
  });
  const writer = async (worker: number) => {
    try {
      for (let i = 0; writing; i++) {
        const idempotencyKey = `w${worker}-${i}`;
        const { data, response } = await client.POST('/messages', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body: { message: idempotencyKey },
        });
        if (response.status !== 202) throw new Error(`sendMessage answered ${response.status}`);
        acknowledged.push({ key: idempotencyKey, id: data?.id as string });
        if (acknowledged.length >= 20) flowing?.resolve();
      }
    } catch (error) {
      failure = error as Error;
      flowing?.reject(failure);
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, worker) => writer(worker));
  return {
    acknowledged,
    /** Settles once writes are acknowledged, or as soon as one fails. */
    started,
    stop: async () => {
      writing = false;
      await Promise.all(writers);
      if (failure) throw failure;
    },
  };
}

describe('store-orders backup FILE', () => {
  it('copies, while the server takes writes, every write acknowledged before it began, consistently', async () => {
    const server = await start(scratch.env.DATABASE_URL, true);
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], scratch.env)).stdout.trim();
    const orders = join(scratch.folder, 'orders.json');
    writeFileSync(orders, JSON.stringify(Array.from({ length: ORDERS }, (_, i) => ({ petId: i + 1, quantity: 1 }))));
    expect((await runCliInProcess(['orders', 'import', orders], scratch.env)).code).toBe(0);

    const load = writeContinuously(server.baseUrl, key);
    await load.started;
    const before = [...load.acknowledged];
    const copy = join(scratch.folder, 'copy.db');
    // As a process, beside the server's: the family's run of the real CLI.
    const backup = await runCli(['backup', copy], scratch.env);
    const duringBackup = load.acknowledged.length - before.length;
    await load.stop();

    expect(backup).toMatchObject({ code: 0, stdout: `backed up ${scratch.env.DATABASE_URL} to ${copy}\n`, stderr: '' });
    // The server went on acknowledging writes while the backup ran.
    expect(duringBackup).toBeGreaterThan(0);
    // One complete file: no -wal, -journal or partial file beside it.
    expect(readdirSync(scratch.folder).filter((name) => name.includes('copy'))).toEqual(['copy.db']);

    const db = new Database(copy);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const stored = new Set(db.prepare('SELECT id FROM messages').pluck().all());
      expect(before.filter(({ id }) => !stored.has(id))).toEqual([]);
      expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(ORDERS);
    } finally {
      db.close();
    }

    // Restored as it is, with no init: the server serves its orders, its key, and its idempotency records.
    server.child.kill('SIGTERM');
    await server.finished;
    const restored = await start(copy, false);
    const client = apiClient(restored.baseUrl, key);
    const listed = await client.GET('/store/orders');
    expect(listed.response.status).toBe(200);
    expect(listed.data).toHaveLength(ORDERS);
    const first = before[0] as { key: string; id: string };
    const replayed = await client.POST('/messages', {
      params: { header: { 'Idempotency-Key': first.key } },
      body: { message: first.key },
    });
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.data?.id).toBe(first.id);
  });

  it('never overwrites a file: an existing FILE is refused with exit 1 and left as it was', async () => {
    expect((await runCliInProcess(['init'], scratch.env)).code).toBe(0);
    const existing = join(scratch.folder, 'existing.db');
    writeFileSync(existing, 'keep me');
    const result = await runCliInProcess(['backup', existing], scratch.env);
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `store-orders: ${existing} already exists; a backup never overwrites a file: name a new one\n`,
    });
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
    expect(readdirSync(scratch.folder).filter((name) => name.includes('existing'))).toEqual(['existing.db']);
  });

  it('gives the copy the permissions of the database file, which may be kept from other users', async () => {
    expect((await runCliInProcess(['init'], scratch.env)).code).toBe(0);
    chmodSync(scratch.env.DATABASE_URL, 0o600);
    const copy = join(scratch.folder, 'copy.db');
    expect((await runCliInProcess(['backup', copy], scratch.env)).code).toBe(0);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
  });

  it('refuses a FILE whose folder does not exist, and creates nothing', async () => {
    expect((await runCliInProcess(['init'], scratch.env)).code).toBe(0);
    const file = join(scratch.folder, 'typo', 'copy.db');
    const result = await runCliInProcess(['backup', file], scratch.env);
    expect(result).toMatchObject({
      code: 1,
      stderr: `store-orders: cannot back up to ${file}: its folder does not exist\n`,
    });
    expect(existsSync(join(scratch.folder, 'typo'))).toBe(false);
  });
});
