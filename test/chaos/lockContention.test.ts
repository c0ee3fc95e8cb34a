// Lock contention: another process holds SQLite's write lock. Writes wait for it up to SQLITE_WRITE_WAIT_MS
// and then answer 503 with Retry-After, never 500; reads go on answering meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdWriteLock, prepareDatabase } from '../support/faults.js';
import { rawRequest } from '../support/http.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';

const WRITE_WAIT_MS = 1_000;
let folder: string;
let server: ServerProcess;
let dbPath: string;
let key: string;

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-lock-'));
  dbPath = join(folder, 'store.db');
  ({ key } = await prepareDatabase(dbPath, 10));
  server = await spawnServer(
    { DATABASE_URL: dbPath, SQLITE_WRITE_WAIT_MS: String(WRITE_WAIT_MS) },
    { init: false },
  );
});
afterEach(async () => {
  server.child.kill('SIGTERM');
  await server.finished;
  rmSync(folder, { recursive: true, force: true });
});

const send = (message: string) =>
  rawRequest(`${server.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
const cancel = (orderId: number) =>
  rawRequest(`${server.baseUrl}/v1/store/orders/${orderId}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${key}` },
  });
const list = () =>
  rawRequest(`${server.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });

describe('another process holding the write lock', () => {
  it('for longer than the write wait: writes answer 503 with Retry-After, reads keep answering', async () => {
    const holder = await holdWriteLock(dbPath, 3 * WRITE_WAIT_MS);
    let writesSettled = false;
    const writes = Promise.all([send('blocked'), cancel(1)]).finally(() => {
      writesSettled = true;
    });
    // Reads while the writes wait: each is answered, not queued behind the lock.
    const reads: { status: number; ms: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const answer = await list();
      reads.push({ status: answer.status, ms: performance.now() - started });
      const pet = await rawRequest(`${server.baseUrl}/v1/pets/1`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(pet.status).toBe(200);
    }
    expect(reads.every((read) => read.status === 200)).toBe(true);
    expect(writesSettled).toBe(false);

    for (const answer of await writes) {
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({
        code: 'service_unavailable',
        message: 'The database is busy; retry shortly',
        status: 503,
      });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    await holder.released;
    expect((await send('after the lock')).status).toBe(202);
    expect((await cancel(1)).status).toBe(204);
  });

  it('for less than the write wait: writes wait it out and succeed', async () => {
    const holder = await holdWriteLock(dbPath, WRITE_WAIT_MS / 3);
    const [sent, cancelled] = await Promise.all([send('waited'), cancel(2)]);
    await holder.released;
    expect(sent.status).toBe(202);
    expect(cancelled.status).toBe(204);
  });
});
