// Server processes on one database, clients spread over them: every promise the API makes holds across
// them, on every backend, whether the service is three servers or two servers of two workers each
// (WORKERS=2, whose primary hands each connection to the next worker). The rate limits alone are counted per
// server where separate servers on one database do not share the count (a SQLite file), as the contract
// says.
import { setTimeout } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdminStore } from '../../src/store/store.js';
import { runCliInProcess } from '../support/commandLine.js';
import { type ServerProcess, spawnServer, untilWorkersListen } from '../support/processes.js';
import { type ScratchDatabase, scratchDatabase, STORE_BACKENDS } from '../support/storeBackends.js';

/** How the service's processes are laid out. */
const SHAPES = [
  { name: 'three servers', count: 3, workers: 1 },
  { name: 'two servers of two workers each', count: 2, workers: 2 },
];
const SERVICES = STORE_BACKENDS.flatMap((backend) => SHAPES.map((shape) => ({ ...shape, backend, kind: backend.kind })));

describe.each(SERVICES)('$name on one $kind database', ({ backend, count, workers }) => {
  let database: ScratchDatabase;
  let servers: ServerProcess[] = [];
  let key: string;

  /** The servers, once every worker of each listens (each says so in its log at info). */
  async function startServers(env: NodeJS.ProcessEnv = {}) {
    const settings = { DATABASE_URL: database.url, LOG_LEVEL: 'info', WORKERS: String(workers), ...env };
    servers = await Promise.all(Array.from({ length: count }, () => spawnServer(settings, { init: false })));
    await Promise.all(servers.map((server) => untilWorkersListen(server, workers)));
  }

  /** Request number `i` goes to server `i` mod the number of servers. */
  const call = (i: number, path: string, init: RequestInit = {}, bearer = key) =>
    fetch(`${servers[i % servers.length]?.baseUrl}/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json', ...init.headers },
    });

  async function withStore<T>(work: (store: AdminStore) => Promise<T>): Promise<T> {
    const store = await database.open();
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  beforeEach(async ({ skip }) => {
    if (!backend.available) skip(backend.unavailable);
    database = await scratchDatabase(backend.kind, 'store-orders-instances-');
    expect((await runCliInProcess(['init'], { DATABASE_URL: database.url })).code).toBe(0);
    await runCliInProcess(['accounts', 'create', 'acme'], { DATABASE_URL: database.url });
    key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: database.url })).stdout.trim();
  });

  afterEach(async () => {
    if (!backend.available) return;
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.finished));
    servers = [];
    await database.drop();
  });

  it('40 concurrent cancels of one order: exactly one 204, the rest 404 (a cancelled order is gone)', async () => {
    await startServers();
    const order = await withStore((store) => store.orders.addOrder({ petId: 1, quantity: 1 }));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i, `/store/orders/${order.id}`, { method: 'DELETE' })),
    );
    const statuses = answers.map(({ status }) => status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    expect(statuses.filter((status) => status === 404)).toHaveLength(39);
  });

  it('100 concurrent sends with one Idempotency-Key: one message; every other answer replays it or is 409 in flight', async () => {
    await startServers();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(i, '/messages', {
          method: 'POST',
          headers: { 'Idempotency-Key': 'one-order-please' },
          body: JSON.stringify({ message: 'only once' }),
        }),
      ),
    );
    const stored = await withStore((store) => store.messages.listMessages());
    expect(stored).toHaveLength(1);
    for (const answer of answers) {
      const body = (await answer.json()) as { id?: string; code?: string };
      if (answer.status === 202) expect(body.id).toBe(stored[0]?.id);
      else expect({ status: answer.status, code: body.code }).toEqual({ status: 409, code: 'idempotency_key_in_use' });
    }
  });

  it('a key revoked with the CLI is refused by every server from its very next request', async () => {
    await startServers();
    // Four at once to each server: connections of their own, which reach each of its workers.
    const everyProcess = async () =>
      (await Promise.all(Array.from({ length: 4 * count }, (_, i) => call(i, '/store/orders')))).map(({ status }) => status);
    expect(await everyProcess()).toEqual(Array(4 * count).fill(200));
    expect((await runCliInProcess(['keys', 'revoke', key], { DATABASE_URL: database.url })).code).toBe(0);
    expect(await everyProcess()).toEqual(Array(4 * count).fill(401));
  });

  it("an order cancelled on one server is gone from every server's next list; the ETags agree, short list and long", async () => {
    await startServers();
    const etags = async () => {
      const lists = await Promise.all(Array.from({ length: 2 * count }, (_, i) => call(i, '/store/orders')));
      const bodies = await Promise.all(lists.map((list) => list.text()));
      return { etags: lists.map((list) => list.headers.get('etag')), bodies };
    };
    for (const orders of [3, 10_001]) {
      await withStore((store) => store.orders.importOrders(Array.from({ length: orders }, () => ({ petId: 1, quantity: 1 }))));
      const before = await etags();
      expect(new Set(before.etags).size).toBe(1);
      expect(new Set(before.bodies).size).toBe(1);
      const [first] = JSON.parse(before.bodies[0] as string) as { id: number }[];
      expect((await call(1, `/store/orders/${first?.id}`, { method: 'DELETE' })).status).toBe(204);
      const after = await etags();
      expect(new Set(after.etags).size).toBe(1);
      expect(after.etags[0]).not.toBe(before.etags[0]);
      for (const body of after.bodies) expect(body).not.toContain(`{"id":${first?.id},`);
    }
  });

  // Servers on PostgreSQL share the count (test/scale/sharedQuotas.test.ts), and so do the workers of one
  // server on SQLite; separate servers on one SQLite file do not, as docs/operating.md says. Defined only for
  // separate single-process servers that do not share it (sharedQuotas.test.ts counts across workers): a
  // skipped test would fail CI's run, which must skip nothing.
  const unshared = backend.sharedQuotas || workers > 1 ? () => {} : it;
  unshared('counts the rate limit per server where servers do not share the count: a key gets its quota from each of them', async () => {
    const windowMs = 10_000;
    await startServers({ RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: String(windowMs / 1000) });
    // The windows are fixed on the clock, the same for the three servers. Requests after the end of a
    // window count in the next one, so a run that crosses an end can only be taken again in the window after.
    const untilNextWindow = () => setTimeout(windowMs - (Date.now() % windowMs) + 50);
    /** Twelve requests, spread over the three servers; `undefined` if a window ended on the way. */
    const twelve = async () => {
      const answers: { status: number; remaining: string | undefined; reset: number }[] = [];
      for (let i = 0; i < 12; i++) {
        const response = await call(i, '/store/orders');
        const [, remaining, reset] = /;r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '') ?? [];
        answers.push({ status: response.status, remaining, reset: Number(reset) });
      }
      const windowEnded = answers.some((answer, i) => i > 0 && answer.reset > (answers[i - 1]?.reset ?? 0));
      return windowEnded ? undefined : answers;
    };
    // Until a run fits in one window, however slow the machine; the suite's time-out is the hang guard.
    let answers = await twelve();
    while (answers === undefined) answers = await untilNextWindow().then(twelve);
    // Requests 0 to 8 are each server's three, the first of each leaving two; 9 to 11 each server's fourth.
    expect(answers.map(({ status }) => status)).toEqual([...Array<number>(9).fill(200), 429, 429, 429]);
    expect(answers.slice(0, 3).map(({ remaining }) => remaining)).toEqual(['2', '2', '2']);
  });
});
