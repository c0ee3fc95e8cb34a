// kill -9 of one server of three on one PostgreSQL database, under 32 writers, round after round: every
// acknowledged cancel and message is in the database, and the servers that live answer no 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminStore } from '../../src/store/store.js';
import { runCli, type ServerProcess, spawnServer } from '../support/processes.js';
import { size } from '../support/sizes.js';
import { type ScratchDatabase, scratchDatabase, storeBackend } from '../support/storeBackends.js';

const ROUNDS = size('INSTANCE_KILL_ROUNDS');
const WRITERS = 32;
const ORDERS = 20_000;

describe.skipIf(!storeBackend('postgres').available)('one server of three killed, round after round, under 32 writers', () => {
  let database: ScratchDatabase<'postgres'>;
  let store: AdminStore;
  let key: string;
  const servers: ServerProcess[] = [];

  const start = () => spawnServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, { init: false });

  beforeAll(async () => {
    database = await scratchDatabase('postgres');
    store = await database.open();
    await store.orders.importOrders(Array.from({ length: ORDERS }, () => ({ petId: 1, quantity: 1 })));
    await runCli(['accounts', 'create', 'acme'], { DATABASE_URL: database.url });
    key = (await runCli(['keys', 'create', '--account', 'acme'], { DATABASE_URL: database.url })).stdout.trim();
    servers.push(...(await Promise.all([start(), start(), start()])));
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await store.close();
    await database.drop();
  });

  it(`${ROUNDS} rounds: nothing acknowledged is lost, and no live server answers 5xx`, async () => {
    const cancelled: number[] = [];
    const queued: string[] = [];
    const fromLiveServers: string[] = [];
    let nextOrder = 1;
    let stopped = false;
    let dead: ServerProcess | undefined;

    const writer = async (writerIndex: number) => {
      for (let i = 0; !stopped; i++) {
        const server = servers[(writerIndex + i) % servers.length] as ServerProcess;
        const cancel = writerIndex % 2 === 0;
        const orderId = nextOrder++;
        try {
          const response = await fetch(
            cancel ? `${server.baseUrl}/v1/store/orders/${orderId}` : `${server.baseUrl}/v1/messages`,
            {
              method: cancel ? 'DELETE' : 'POST',
              headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
              ...(!cancel && { body: JSON.stringify({ message: `writer ${writerIndex} #${i}` }) }),
            },
          );
          const body = await response.text();
          if (response.status >= 500 && server !== dead) fromLiveServers.push(`${response.status} ${body}`);
          if (cancel && response.status === 204) cancelled.push(orderId);
          if (!cancel && response.status === 202) queued.push((JSON.parse(body) as { id: string }).id);
        } catch {
          // The connection died with its server: not acknowledged, so nothing to find later.
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, index) => writer(index));

    for (let round = 0; round < ROUNDS; round++) {
      const at = round % servers.length;
      const victim = servers[at];
      if (!victim) throw new Error(`no server ${at}`);
      dead = victim;
      const acknowledged = cancelled.length + queued.length;
      while (cancelled.length + queued.length < acknowledged + 50) await new Promise((resolve) => setTimeout(resolve, 5));
      victim.child.kill('SIGKILL');
      await victim.finished;
      servers[at] = await start();
    }
    stopped = true;
    await Promise.all(writers);

    expect(fromLiveServers).toEqual([]);
    const orders = new Map((await store.orders.listAllOrders()).map((order) => [order.id, order.status]));
    expect(cancelled.filter((id) => orders.get(id) !== 'cancelled')).toEqual([]);
    const messages = new Set((await store.messages.listMessages()).map(({ id }) => id));
    expect(queued.filter((id) => !messages.has(id))).toEqual([]);
    console.log(`${ROUNDS} kills: ${cancelled.length} cancels and ${queued.length} messages acknowledged, all stored`);
    // A hang guard: each round restarts a server, which takes seconds on a machine busy with other work.
  }, 180_000 + ROUNDS * 20_000);
});
