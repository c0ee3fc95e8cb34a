// Many processes deliver one queue together: three servers on one PostgreSQL database, and two workers on one
// SQLite file. 32 writers send DELIVERY_MESSAGES messages (test/support/sizes.ts) through them, spread over
// the processes; the receiver gets every one, each once (no process is killed here, so none may come twice),
// each account's in the order its 202s came, every signature verified.
import { setTimeout } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer } from '../support/processes.js';
import { type Receiver, startReceiver, until } from '../support/receiver.js';
import { size } from '../support/sizes.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

const MESSAGES = size('DELIVERY_MESSAGES');
const WRITERS = 32;

/** Three servers on PostgreSQL; on SQLite, one server of two workers (the file's own way to scale). */
const TOPOLOGY = { postgres: { servers: 3, workers: 1 }, sqlite: { servers: 1, workers: 2 } } as const;

/**
 * Sends one message, again after a 503 `service_unavailable` as its `Retry-After` says, as a client does: on
 * a loaded machine 32 writers may wait longer than the pool's 2 s for one of a server's 10 connections, and
 * the server then answers busy, having written nothing. A 503 for a message that was in fact queued would
 * show here as a message delivered twice or out of its writer's order.
 */
async function sentWhileBusy(server: ServerProcess, key: string, message: string): Promise<Response> {
  for (;;) {
    const response = await fetch(`${server.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message }),
    });
    if (response.status !== 503) return response;
    expect(await response.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
    const retryAfter = response.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    await setTimeout(Number(retryAfter) * 1000);
  }
}

describe.each(STORE_BACKENDS)('delivery by many processes on one $kind database', (backend) => {
  let database: ScratchDatabase;
  let receiver: Receiver;
  let servers: ServerProcess[] = [];

  beforeEach(async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    database = await scratchDatabase(backend.kind, 'store-orders-delivery-scale-');
    receiver = await startReceiver();
  });

  afterEach(async () => {
    if (!backend.available) return;
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.finished));
    servers = [];
    await receiver.close();
    await database.drop();
  });

  it(`delivers ${MESSAGES} messages from ${WRITERS} writers: each once, each account's in order`, async () => {
    const env = { DATABASE_URL: database.url };
    expect((await runCliInProcess(['init'], env)).code).toBe(0);
    const { servers: count, workers } = TOPOLOGY[backend.kind];
    servers = await Promise.all(
      Array.from({ length: count }, () =>
        spawnServer(
          {
            ...env,
            LOG_LEVEL: 'warn',
            WORKERS: String(workers),
            MESSAGE_WEBHOOK_URL: receiver.url,
            MESSAGE_WEBHOOK_SECRET: receiver.secret,
          },
          { init: false },
        ),
      ),
    );
    const keys: string[] = [];
    for (let writer = 0; writer < WRITERS; writer++) {
      keys.push((await runCliInProcess(['keys', 'create', '--account', `writer ${writer}`], env)).stdout.trim());
    }
    // Each writer sends its share one after another, each to the next server in turn.
    const sent = await Promise.all(
      keys.map(async (key, writer) => {
        const ids: string[] = [];
        for (let n = writer; n < MESSAGES; n += WRITERS) {
          const response = await sentWhileBusy(servers[n % servers.length] as ServerProcess, key, `message ${n}`);
          expect(response.status).toBe(202);
          ids.push(((await response.json()) as { id: string }).id);
        }
        return ids;
      }),
    );
    await until(() => receiver.counts().size === MESSAGES);
    // Every message is delivered in the store too: no attempt is still in flight to come twice.
    await until(async () => {
      const { stdout } = await runCliInProcess(['messages', 'list', '--status', 'queued', '--limit', '1'], env);
      return stdout.trim() === '[]';
    });
    expect(receiver.rejected).toEqual([]);
    const twice = [...receiver.counts()].filter(([, times]) => times > 1);
    expect(twice).toEqual([]);
    // On a failure, the messages tried more than once say why: an attempt that failed lets later ones pass.
    const retried = async () =>
      (JSON.parse((await runCliInProcess(['messages', 'list'], env)).stdout) as { id: string; attempts: number; lastError?: string }[])
        .filter(({ attempts }) => attempts > 1);
    for (const [writer, ids] of sent.entries()) {
      const received = receiver.deliveries.filter(({ payload }) => payload.account === `writer ${writer}`);
      const inOrder = received.map(({ payload }) => payload.id).join() === ids.join();
      expect(inOrder, inOrder ? '' : `writer ${writer} out of order; tried again: ${JSON.stringify(await retried())}`).toBe(true);
    }
    // A hang guard that grows with the messages: a busy machine took minutes for 5,000.
  }, 180_000 + MESSAGES * 60);
});
