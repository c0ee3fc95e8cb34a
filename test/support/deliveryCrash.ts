// kill -9 of a server while it delivers, round after round, on one backend: two servers share one
// database and deliver its queue to a receiver that takes each delivery a little while to answer, so that a
// kill finds attempts in flight. Every message acknowledged with a 202 is eventually received, every
// delivery verified by the Standard Webhooks package; one received twice (its server was killed before it
// could record the answer) comes with the same webhook-id, as the receiver's count by id shows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom, writeReport } from './faults.js';
import { runCli, type ServerProcess, spawnServer } from './processes.js';
import { type Receiver, startReceiver, until } from './receiver.js';
import { size } from './sizes.js';
import { type ScratchDatabase, scratchDatabase, type StoreBackend } from './storeBackends.js';

const ROUNDS = size('DELIVERY_CRASH_ROUNDS');
const WRITERS = 8;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);

/** The rounds on `backend`'s database (the fault suite runs them on SQLite, npm run test:postgres on PostgreSQL). */
export function deliveryCrashRounds(backend: StoreBackend): void {
  describe(`kill -9 of a server delivering from one ${backend.kind} database`, () => {
    let database: ScratchDatabase;
    let receiver: Receiver;
    const servers: ServerProcess[] = [];

    beforeEach(async ({ skip }) => {
      if (!backend.available) skip(backend.unavailable);
      database = await scratchDatabase(backend.kind, 'store-orders-delivery-crash-');
      receiver = await startReceiver();
    });

    afterEach(async () => {
      if (!backend.available) return;
      for (const server of servers.splice(0)) {
        if (server.child.exitCode === null) server.child.kill('SIGKILL');
        await server.finished;
      }
      await receiver.close();
      await database.drop();
    });

    it(`${ROUNDS} rounds: every acknowledged message is delivered, a second time only with its webhook-id (seed ${SEED})`, async () => {
      const env = { DATABASE_URL: database.url };
      expect((await runCli(['init'], env)).code).toBe(0);
      // A writer per account: an account's messages are delivered one at a time, in order.
      const keys: string[] = [];
      for (let index = 0; index < WRITERS; index++) {
        keys.push((await runCli(['keys', 'create', '--account', `writer ${index}`], env)).stdout.trim());
      }
      // A short time-out, so that the leases a killed server leaves end within seconds.
      const start = () =>
        spawnServer(
          { ...env, LOG_LEVEL: 'warn', MESSAGE_WEBHOOK_URL: receiver.url, MESSAGE_WEBHOOK_SECRET: receiver.secret, MESSAGE_WEBHOOK_TIMEOUT_MS: '1000' },
          { init: false },
        );
      servers.push(...(await Promise.all([start(), start()])));
      const random = seededRandom(SEED);
      receiver.answer = () => ({ status: 204, afterMs: Math.floor(random() * 10) });
      const acknowledged: string[] = [];
      let stopped = false;
      const writer = async (index: number) => {
        for (let i = 0; !stopped; i++) {
          const server = servers[(index + i) % servers.length] as ServerProcess;
          try {
            const response = await fetch(`${server.baseUrl}/v1/messages`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${keys[index]}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ message: `writer ${index} #${i}` }),
            });
            if (response.status === 202) acknowledged.push(((await response.json()) as { id: string }).id);
            else await response.text();
          } catch {
            // The server was killed under this request: it was not acknowledged.
          }
        }
      };
      const writing = Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
      for (let round = 1; round <= ROUNDS; round++) {
        // Once the receiver has taken deliveries since the last kill, at a random moment.
        const before = receiver.deliveries.length;
        await until(() => receiver.deliveries.length > before + 5);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
        const victim = servers[round % 2] as ServerProcess;
        victim.child.kill('SIGKILL');
        await victim.finished;
        servers[round % 2] = await start();
      }
      stopped = true;
      await writing;
      await until(() => acknowledged.every((id) => receiver.counts().has(id)));
      expect(receiver.rejected).toEqual([]);
      // Each delivery is recorded under its webhook-id, which verified as the payload's id.
      expect(receiver.deliveries.every(({ webhookId, payload }) => webhookId === payload.id)).toBe(true);
      const twice = [...receiver.counts().values()].filter((times) => times > 1).length;
      writeReport(`delivery-crash-${backend.kind}`, { seed: SEED, rounds: ROUNDS, acknowledged: acknowledged.length, twice });
      // A hang guard: each round restarts a server, which takes seconds on a machine busy with other work.
    }, 180_000 + ROUNDS * 20_000);
  });
}
