// Graceful stop: on SIGTERM (or SIGHUP) the server takes no new connections, finishes every request in flight
// with its normal answer, and exits 0. A second signal, or the stop deadline, ends it at once.
import { request } from 'node:http';
import { connect } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdWriteLock as holdLock, type LockHolder, prepareDatabase } from '../support/faults.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase } from '../support/storeBackends.js';

let scratch: ScratchDatabase<'sqlite'>;
let dbPath: string;
let key: string;
let server: ServerProcess;

beforeEach(async () => {
  scratch = await scratchDatabase('sqlite', 'store-orders-stop-');
  dbPath = scratch.location.path;
  ({ key } = await prepareDatabase(dbPath));
});
const holders: LockHolder[] = [];
/** The write lock, held by another process until the test releases it (or the test ends). */
async function holdWriteLock(path: string): Promise<LockHolder> {
  const holder = await holdLock(path);
  holders.push(holder);
  return holder;
}
afterEach(async () => {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.finished;
  await Promise.all(holders.splice(0).map((holder) => holder.release()));
  await scratch.drop();
});

type Outcome = { status: number } | { error: string };

/** One sendMessage on a connection of its own. */
function sendOnNewConnection(message: string): Promise<Outcome> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    const body = JSON.stringify({ message });
    request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/messages',
        agent: false,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ error: error.code ?? error.message }),
        );
      },
    )
      .on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
      .end(body);
  });
}

/** A sendMessage whose body is still arriving: it stays in flight until `finish` sends the rest. */
function sendSlowly(message: string): { answer: Promise<Outcome>; finish: () => void } {
  const { port } = new URL(server.baseUrl);
  const body = JSON.stringify({ message });
  const sending = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/messages',
    agent: false,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
  });
  const answer = new Promise<Outcome>((resolve) => {
    sending.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    sending.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
  sending.write(body.slice(0, 5));
  return { answer, finish: () => sending.end(body.slice(5)) };
}

/** Resolves once the server has logged `count` received requests (at debug): in flight, not on the wire. */
async function untilReceived(count: number): Promise<void> {
  const received = () => server.output.stdout.split('"incoming request"').length - 1;
  while (received() < count) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Resolves once `text` is in the server's output. */
async function untilLogged(text: string): Promise<void> {
  while (!server.output.stdout.includes(text)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Resolves once a new TCP connection is refused; one that still gets through is closed unused. */
async function untilRefused(): Promise<void> {
  const { port } = new URL(server.baseUrl);
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const storedMessages = () => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
  } finally {
    db.close();
  }
};

// The writes wait for another process's lock, which the test lets go of only once it has seen what it
// checks: however slow the machine, they are in flight when the signals come. The server's own waits are
// set far beyond that (a hang guard), except where the test is about one of them.
const LONGER_THAN_ANY_TEST = '170000';

describe('SIGTERM', () => {
  it('completes all 200 requests in flight with their normal status, resets none, and exits 0 before its stop deadline', async () => {
    server = await spawnServer(
      { DATABASE_URL: dbPath, LOG_LEVEL: 'debug', SQLITE_WRITE_WAIT_MS: LONGER_THAN_ANY_TEST, STOP_TIMEOUT_MS: LONGER_THAN_ANY_TEST },
      { init: false },
    );
    const holder = await holdWriteLock(dbPath);
    const outcomes = Promise.all(
      Array.from({ length: 200 }, (_, i) => sendOnNewConnection(`in flight ${i}`)),
    );
    await untilReceived(200);
    server.child.kill('SIGTERM');

    let settled = false;
    void outcomes.then(() => {
      settled = true;
    });
    await untilRefused();
    // Refused while the 200 are still waiting for the lock: the listener closed first.
    expect(settled).toBe(false);
    expect(await sendOnNewConnection('too late')).toEqual({ error: 'ECONNREFUSED' });

    await holder.release();
    expect(await outcomes).toEqual(Array.from({ length: 200 }, () => ({ status: 202 })));
    const finished = await server.finished;
    // Exit 0: every request finished before the stop deadline (the third test shows the exit 1 at it).
    expect(finished.code).toBe(0);
    expect(finished.stdout).not.toContain('requests still in flight at the stop deadline');
    expect(storedMessages()).toBe(200);
  });

  it('a second signal exits at once, acknowledging nothing that was not written', async () => {
    server = await spawnServer(
      { DATABASE_URL: dbPath, LOG_LEVEL: 'debug', SQLITE_WRITE_WAIT_MS: LONGER_THAN_ANY_TEST, STOP_TIMEOUT_MS: LONGER_THAN_ANY_TEST },
      { init: false },
    );
    const holder = await holdWriteLock(dbPath);
    const outcomes = Promise.all(Array.from({ length: 20 }, (_, i) => sendOnNewConnection(`cut ${i}`)));
    await untilReceived(20);
    server.child.kill('SIGTERM');
    // The second signal must come after the first was handled, not coalesce with it.
    await untilLogged('"stopping: no new connections');
    server.child.kill('SIGTERM');
    // At once: it exits while the writes still wait for the lock, which is let go of only afterwards, and
    // long before either its write wait or its stop deadline could end them.
    const finished = await server.finished;
    expect(finished.code).toBe(1);
    expect(finished.stdout).toContain('second signal: exiting now');
    expect(finished.stdout).not.toContain('requests still in flight at the stop deadline');
    for (const outcome of await outcomes) expect(outcome).not.toHaveProperty('status');
    await holder.release();
    expect(storedMessages()).toBe(0);
  });

  it('exits 1 when requests are still in flight at the stop deadline', async () => {
    const stopTimeoutMs = 1_000;
    server = await spawnServer(
      { DATABASE_URL: dbPath, LOG_LEVEL: 'debug', SQLITE_WRITE_WAIT_MS: LONGER_THAN_ANY_TEST, STOP_TIMEOUT_MS: String(stopTimeoutMs) },
      { init: false },
    );
    const holder = await holdWriteLock(dbPath);
    const outcomes = Promise.all(Array.from({ length: 20 }, (_, i) => sendOnNewConnection(`late ${i}`)));
    await untilReceived(20);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const finished = await server.finished;
    // It waited for its deadline, which its own clock starts once it has the signal; and it did not wait
    // for the writes, whose lock is let go of only now.
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(stopTimeoutMs - 100);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toContain('requests still in flight at the stop deadline');
    for (const outcome of await outcomes) expect(outcome).not.toHaveProperty('status');
    await holder.release();
    expect(storedMessages()).toBe(0);
  });
});

describe('SIGHUP', () => {
  it('stops gracefully, as SIGTERM does: the request in flight is answered, then "stopped", exit 0', async () => {
    server = await spawnServer({ DATABASE_URL: dbPath, LOG_FORMAT: 'json', LOG_LEVEL: 'debug' }, { init: false });
    const slow = sendSlowly('in flight');
    await untilReceived(1);
    server.child.kill('SIGHUP');
    await untilRefused();
    slow.finish();
    expect(await slow.answer).toEqual({ status: 202 });
    const finished = await server.finished;
    expect(finished).toMatchObject({ code: 0, signal: null });
    const lines = finished.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; signal?: string });
    const stopping = lines.findIndex((line) => line.msg.startsWith('stopping: no new connections'));
    expect(lines[stopping]).toMatchObject({ signal: 'SIGHUP' });
    expect(lines.findIndex((line) => line.msg === 'stopped')).toBeGreaterThan(stopping);
    expect(storedMessages()).toBe(1);
  });
});
