// Lock contention: another process holds SQLite's write lock. Writes wait for it up to SQLITE_WRITE_WAIT_MS
// and then answer 503 with Retry-After, never 500; reads go on answering meanwhile.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdWriteLock as holdLock, type LockHolder, prepareDatabase } from '../support/faults.js';
import { rawRequest } from '../support/http.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase } from '../support/storeBackends.js';

// Where the wait is not what a test is about, it is far longer than any test, so that however slow the
// machine, the writes are still waiting when the test looks: it lets go of the lock, not a clock.
const LONGER_THAN_ANY_TEST = 170_000;
let scratch: ScratchDatabase<'sqlite'>;
let server: ServerProcess | undefined;
let dbPath: string;
let key: string;
const holders: LockHolder[] = [];

beforeEach(async () => {
  scratch = await scratchDatabase('sqlite', 'store-orders-lock-');
  dbPath = scratch.location.path;
  ({ key } = await prepareDatabase(dbPath, 10));
});
afterEach(async () => {
  server?.child.kill('SIGTERM');
  await server?.finished;
  server = undefined;
  await Promise.all(holders.splice(0).map((holder) => holder.release()));
  await scratch.drop();
});

async function start(writeWaitMs: number): Promise<ServerProcess> {
  server = await spawnServer(
    { DATABASE_URL: dbPath, LOG_LEVEL: 'debug', SQLITE_WRITE_WAIT_MS: String(writeWaitMs) },
    { init: false },
  );
  return server;
}

/** The write lock, held by another process until the test releases it (or the test ends). */
async function holdWriteLock(): Promise<LockHolder> {
  const holder = await holdLock(dbPath);
  holders.push(holder);
  return holder;
}

/** Resolves once the server has logged `count` received requests in all. */
async function untilReceived({ output }: ServerProcess, count: number): Promise<void> {
  while (output.stdout.split('"incoming request"').length - 1 < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const send = (message: string) =>
  rawRequest(`${server?.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
const cancel = (orderId: number) =>
  rawRequest(`${server?.baseUrl}/v1/store/orders/${orderId}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${key}` },
  });
const list = () =>
  rawRequest(`${server?.baseUrl}/v1/store/orders`, { headers: { Authorization: `Bearer ${key}` } });
const pet = () => rawRequest(`${server?.baseUrl}/v1/pets/1`, { headers: { Authorization: `Bearer ${key}` } });

describe('another process holding the write lock', () => {
  it('reads keep answering while writes wait for it, and the writes succeed once it is let go', async () => {
    const running = await start(LONGER_THAN_ANY_TEST);
    const holder = await holdWriteLock();
    let writesSettled = false;
    const writes = Promise.all([send('waited'), cancel(1)]).finally(() => {
      writesSettled = true;
    });
    await untilReceived(running, 2);
    // Each read is answered, not queued behind the lock or the writes waiting for it.
    for (let i = 0; i < 10; i++) {
      expect((await list()).status).toBe(200);
      expect((await pet()).status).toBe(200);
    }
    expect(writesSettled).toBe(false);
    await holder.release();
    const [sent, cancelled] = await writes;
    expect(sent.status).toBe(202);
    expect(cancelled.status).toBe(204);
  });

  it('for longer than the write wait: writes answer 503 with Retry-After, and succeed once it is let go', async () => {
    await start(1_000);
    const holder = await holdWriteLock();
    for (const answer of await Promise.all([send('blocked'), cancel(1)])) {
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({
        code: 'service_unavailable',
        message: 'The database is busy; retry shortly',
        status: 503,
      });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    await holder.release();
    expect((await send('after the lock')).status).toBe(202);
    expect((await cancel(1)).status).toBe(204);
  });
});
